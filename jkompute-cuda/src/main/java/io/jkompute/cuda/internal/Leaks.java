package io.jkompute.cuda.internal;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frees native resources whose owner was garbage-collected without {@code close()}, and reports each such leak
 * with the stack trace of where the resource was created. Explicit close runs the same release action, once.
 */
public final class Leaks {
    private static final Logger LOG = LoggerFactory.getLogger("io.jkompute.cuda.leaks");
    private static final Cleaner CLEANER = Cleaner.create(
            Thread.ofPlatform().daemon().name("jkompute-cuda-cleaner").factory());
    private static final AtomicLong REPORTED = new AtomicLong();

    private Leaks() {}

    /** Shared by every quietly tracked owner: a throwable without a stack costs nothing to reuse. */
    private static final Throwable NO_SITE = new Throwable("creation site not recorded (pooled)") {
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    };

    /** Number of leaks reported since start (for tests and diagnostics). */
    public static long reported() {
        return REPORTED.get();
    }

    /**
     * Registers {@code owner}; {@code release} must not refer to {@code owner} (or it would never be collected).
     *
     * @param what a short description for the report, e.g. "device memory of 4096 bytes"
     */
    public static Tracked track(Object owner, String what, Runnable release) {
        State state = new State(what, release, new Throwable("created here, on thread " + Thread.currentThread().getName()));
        return new Tracked(state, CLEANER.register(owner, state));
    }

    /**
     * Like {@link #track} without recording where the owner was made: for the pool's blocks, which array math
     * makes on every operation, where a stack trace per block would cost more than the operation.
     */
    public static Tracked trackQuietly(Object owner, String what, Runnable release) {
        State state = new State(what, release, NO_SITE);
        return new Tracked(state, CLEANER.register(owner, state));
    }

    /** The handle an owner keeps; {@link #close()} releases the resource exactly once. */
    public static final class Tracked {
        private final State state;
        private final Cleaner.Cleanable cleanable;

        Tracked(State state, Cleaner.Cleanable cleanable) {
            this.state = state;
            this.cleanable = cleanable;
        }

        public void close() {
            state.explicit = true;
            cleanable.clean();
        }
    }

    private static final class State implements Runnable {
        final String what;
        final Runnable release;
        final Throwable createdAt;
        volatile boolean explicit;

        State(String what, Runnable release, Throwable createdAt) {
            this.what = what;
            this.release = release;
            this.createdAt = createdAt;
        }

        @Override
        public void run() {
            if (!explicit) {
                REPORTED.incrementAndGet();
                LOG.warn("leak: {} was not closed; freeing it now", what, createdAt);
            }
            try {
                release.run();
            } catch (RuntimeException e) {
                // the cleaner thread must survive a failing release; an explicit close reports it to the caller
                if (explicit) throw e;
                LOG.warn("releasing leaked {} failed", what, e);
            }
        }
    }
}

package io.jkompute.graph.internal;

import java.util.function.BooleanSupplier;

/**
 * Agrona-style back-off before blocking: spin, then yield, and only then let the caller park. A thread hand-off
 * through park/unpark costs tens of µs (more on a VM, where a wake-up waits for the host's timer and scheduler);
 * most hand-offs in a pipeline, and a message's round trip to another process on the same host, come within tens of
 * µs. So the phases are bounded by time, not by a count of spins (whose length varies tenfold between CPUs): spin up
 * to {@link #SPIN_NS}, yield up to {@link #YIELD_NS} in all, then give up.
 */
public final class BackoffIdle {
    /** Spinning (a core busy, the fastest hand-off) for at most this long. */
    static final long SPIN_NS = 25_000;
    /** Then yielding (the core free for any other runnable thread) until this long after the start. */
    static final long YIELD_NS = 100_000;

    private BackoffIdle() {
    }

    /** Returns true as soon as {@code done} holds, false if it still does not after the back-off. */
    public static boolean await(BooleanSupplier done) {
        long start = System.nanoTime();
        long elapsed;
        do {
            for (int i = 0; i < 32; i++) { // a clock reading every 32 looks (a look is a few ns)
                if (done.getAsBoolean()) {
                    return true;
                }
                Thread.onSpinWait();
            }
            elapsed = System.nanoTime() - start;
        } while (elapsed < SPIN_NS);
        while (elapsed < YIELD_NS) {
            if (done.getAsBoolean()) {
                return true;
            }
            Thread.yield();
            elapsed = System.nanoTime() - start;
        }
        return done.getAsBoolean();
    }
}

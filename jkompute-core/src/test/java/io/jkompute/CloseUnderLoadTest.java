package io.jkompute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A Manager closed while other threads still submit to it, wait on its sequences, make tensors and read them, as the
 * JVM's exit did to a benchmark loop (a SIGSEGV in the driver): every other thread must end with an
 * {@link IllegalStateException} that says the Manager (or an object of it) is closed, never a crash or another error,
 * and the close must return. Under {@code JKOMPUTE_VALIDATION=sync} a handle destroyed under a submission or a wait is
 * a validation error and fails the test.
 */
class CloseUnderLoadTest {
    private static final String ADD_ONE = """
            #version 450
            layout (local_size_x = 64) in;
            layout (set = 0, binding = 0) buffer A { float a[]; };
            void main() { a[gl_GlobalInvocationID.x] += 1.0; }
            """;

    @Test
    void closingWhileOtherThreadsWorkStopsThemCleanly() throws Exception {
        byte[] spirv = Shader.compile(ADD_ONE);
        for (int round = 0; round < 6; round++) {
            Manager mgr = new Manager();
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            AtomicLong work = new AtomicLong();
            CountDownLatch running = new CountDownLatch(4);
            Thread[] threads = {
                // evaluates a recorded dispatch again and again: submissions and waits
                Thread.ofPlatform().start(() -> guard(unexpected, () -> {
                    Tensor t = mgr.tensor(new float[4096]);
                    Algorithm a = mgr.algorithm(List.of(t), spirv, Workgroup.of(64, 1, 1));
                    Sequence s = mgr.sequence().record(new OpAlgoDispatch(a));
                    running.countDown();
                    while (true) {
                        s.evalAsync();
                        s.evalAwait();
                        work.incrementAndGet();
                    }
                })),
                // makes, uploads, reads back and closes tensors
                Thread.ofPlatform().start(() -> guard(unexpected, () -> {
                    running.countDown();
                    while (true) {
                        try (Tensor t = mgr.tensor(new float[] {1, 2, 3})) {
                            t.syncDevice();
                            t.syncLocal();
                            assertEquals(2f, t.toFloatArray()[1]);
                        }
                        work.incrementAndGet();
                    }
                })),
                // makes device tensors and closes them with their upload still pending: closing runs the pending
                // upload first, which must not happen once the Manager has freed its memories
                Thread.ofPlatform().start(() -> guard(unexpected, () -> {
                    running.countDown();
                    while (true) {
                        mgr.tensor(new float[256]).close();
                        work.incrementAndGet();
                    }
                })),
                // host reads of a tensor's view
                Thread.ofPlatform().start(() -> guard(unexpected, () -> {
                    Tensor t = mgr.tensor(new float[1024], MemoryType.HOST);
                    running.countDown();
                    while (true) {
                        t.toFloatArray();
                        work.incrementAndGet();
                    }
                })),
            };
            assertTrue(running.await(30, TimeUnit.SECONDS), "the workers did not start");
            long start = work.get();
            while (work.get() < start + 20) {
                Thread.sleep(5);
            }
            mgr.close();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(30));
                assertTrue(!t.isAlive(), "a worker is still running after the close");
            }
            if (unexpected.get() != null) {
                throw new AssertionError("round " + round + ": a worker failed otherwise than with 'closed'",
                        unexpected.get());
            }
        }
    }

    /** Runs {@code body} until it throws; an IllegalStateException about something closed is the expected end. */
    private static void guard(AtomicReference<Throwable> unexpected, Runnable body) {
        try {
            body.run();
        } catch (IllegalStateException e) {
            if (!String.valueOf(e.getMessage()).contains("closed")) {
                unexpected.compareAndSet(null, e);
            }
        } catch (Throwable t) {
            unexpected.compareAndSet(null, t);
        }
    }
}

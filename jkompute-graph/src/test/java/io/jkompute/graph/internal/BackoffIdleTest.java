package io.jkompute.graph.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The back-off before blocking is bounded by time: it keeps looking for the whole window, then gives up. */
class BackoffIdleTest {
    @Test
    void givesUpOnlyAfterTheWholeWindow() {
        AtomicInteger looks = new AtomicInteger();
        long t0 = System.nanoTime();
        boolean done = BackoffIdle.await(() -> {
            looks.incrementAndGet();
            return false;
        });
        long elapsed = System.nanoTime() - t0;
        assertFalse(done);
        assertTrue(elapsed >= BackoffIdle.YIELD_NS, "gave up after " + elapsed + " ns, before the window ended");
        assertTrue(looks.get() > 32, "looked " + looks.get() + " times");
    }

    @Test
    void returnsAsSoonAsTheConditionHolds() throws Exception {
        assertTrue(BackoffIdle.await(() -> true));
        // set by another thread while the caller spins or yields: seen within the window, however the phases fall
        for (long delayNs : new long[] {0, 5_000, 40_000}) {
            AtomicBoolean flag = new AtomicBoolean();
            Thread setter = Thread.ofPlatform().start(() -> {
                long until = System.nanoTime() + delayNs;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                flag.set(true);
            });
            boolean seen = false;
            // the setter may not be scheduled within one window on a loaded machine: retry, as a waiter would
            for (int i = 0; i < 100_000 && !seen; i++) {
                seen = BackoffIdle.await(flag::get);
            }
            setter.join();
            assertTrue(seen, "flag set after " + delayNs + " ns was seen");
            assertEquals(true, BackoffIdle.await(flag::get));
        }
    }
}

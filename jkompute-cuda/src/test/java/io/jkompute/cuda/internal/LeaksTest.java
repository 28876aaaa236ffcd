package io.jkompute.cuda.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LeaksTest {

    @Test
    void explicitCloseReleasesOnceAndReportsNothing() {
        AtomicInteger released = new AtomicInteger();
        long before = Leaks.reported();
        Object owner = new Object();
        Leaks.Tracked t = Leaks.track(owner, "test resource", released::incrementAndGet);
        t.close();
        t.close();
        assertEquals(1, released.get());
        assertEquals(before, Leaks.reported());
    }

    @Test
    void anUnclosedOwnerIsReleasedAndReportedAfterCollection() throws InterruptedException {
        AtomicInteger released = new AtomicInteger();
        long before = Leaks.reported();
        track(released);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (released.get() == 0 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(1, released.get());
        assertTrue(Leaks.reported() > before);
    }

    private static void track(AtomicInteger released) {
        Leaks.track(new Object(), "leaked test resource", released::incrementAndGet);
    }
}

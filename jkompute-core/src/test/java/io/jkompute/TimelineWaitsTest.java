package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import io.jkompute.internal.TimelineWaits;
import org.junit.jupiter.api.Test;

/** The per-owner set of timeline points sequences keep for their GPU-side waits. */
class TimelineWaitsTest {
    @Test
    void oneEntryPerOwnerWithTheHighestValue() {
        TimelineWaits<String> w = new TimelineWaits<>();
        String a = new String("a");
        String alsoA = new String("a");   // equal but another owner: entries are by identity
        assertTrue(w.add(a, 5, null));
        assertFalse(w.add(a, 3, null));
        assertFalse(w.add(a, 9, null));
        assertTrue(w.add(alsoA, 1, null));
        assertEquals(2, w.size());
        assertSame(a, w.owner(0));
        assertEquals(9, w.value(0));
        assertSame(alsoA, w.owner(1));
        assertEquals(1, w.value(1));
    }

    @Test
    void growsPastItsFirstCapacityKeepingOrder() {
        TimelineWaits<Integer> w = new TimelineWaits<>();
        Integer[] owners = new Integer[20];
        for (int i = 0; i < 20; i++) {
            owners[i] = Integer.valueOf(1000 + i);
            assertTrue(w.add(owners[i], i, null));
        }
        assertEquals(20, w.size());
        for (int i = 0; i < 20; i++) {
            assertSame(owners[i], w.owner(i));
            assertEquals(i, w.value(i));
        }
    }

    @Test
    void whenFullDropsWhatNoLongerMattersBeforeGrowing() {
        TimelineWaits<String> w = new TimelineWaits<>();
        for (int i = 0; i < 4; i++) {
            w.add("w" + i, i, null);
        }
        // full at 4: the odd values no longer matter, so the fifth entry fits after dropping them
        w.add("w4", 4, (o, v) -> v % 2 == 0);
        assertEquals(3, w.size());
        assertEquals("w0", w.owner(0));
        assertEquals("w2", w.owner(1));
        assertEquals("w4", w.owner(2));
        assertEquals(4, w.value(2));
    }

    @Test
    void clearEmptiesForReuse() {
        TimelineWaits<String> w = new TimelineWaits<>();
        w.add("x", 1, null);
        w.add("y", 2, null);
        w.clear();
        assertEquals(0, w.size());
        assertTrue(w.add("x", 7, null));
        assertEquals(1, w.size());
        assertEquals(7, w.value(0));
    }
}

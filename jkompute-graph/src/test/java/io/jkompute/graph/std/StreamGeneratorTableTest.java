package io.jkompute.graph.std;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The frames StreamGenerator copies from its one table are exactly value(tick, row). */
class StreamGeneratorTableTest {
    @Test
    void everyWindowIsTheFrame() {
        for (long tick : new long[] {123_456_789L, 1L << 40}) {
            check(tick);
        }
        for (long tick = 0; tick < 3000; tick++) {
            check(tick);
        }
    }

    private static void check(long tick) {
        MemorySegment w = StreamGenerator.window(tick);
        assertEquals(StreamGenerator.ROWS * 4L, w.byteSize());
        for (int r = 0; r < StreamGenerator.ROWS; r++) {
            if (StreamGenerator.value(tick, r) != w.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, r)) {
                assertEquals(StreamGenerator.value(tick, r), w.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, r),
                        "tick " + tick + " row " + r);
            }
        }
    }
}

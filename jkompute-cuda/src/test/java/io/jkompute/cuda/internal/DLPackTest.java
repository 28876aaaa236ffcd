package io.jkompute.cuda.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class DLPackTest {

    /** Offsets from dlpack.h on LP64: any other value would break every consumer. */
    @Test
    void layoutMatchesDlpackH() {
        assertEquals(48, DLPack.DL_TENSOR.byteSize());
        assertEquals(64, DLPack.DL_MANAGED_TENSOR.byteSize());
        assertEquals(0, DLPack.OFF_DATA);
        assertEquals(8, DLPack.OFF_DEVICE_TYPE);
        assertEquals(12, DLPack.OFF_DEVICE_ID);
        assertEquals(16, DLPack.OFF_NDIM);
        assertEquals(20, DLPack.OFF_CODE);
        assertEquals(21, DLPack.OFF_BITS);
        assertEquals(22, DLPack.OFF_LANES);
        assertEquals(24, DLPack.OFF_SHAPE);
        assertEquals(32, DLPack.OFF_STRIDES);
        assertEquals(40, DLPack.OFF_BYTE_OFFSET);
        assertEquals(48, DLPack.OFF_MANAGER_CTX);
        assertEquals(56, DLPack.OFF_DELETER);
    }

    @Test
    void writeThenReadGivesTheSameTensor() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = DLPack.write(arena, 0x7f0000001000L, DLPack.KDL_CUDA, 1, 2, 32,
                    new long[] {2, 3}, new long[] {6, 2}, 8, MemorySegment.NULL);
            assertEquals(0x7f0000001000L, m.get(JAVA_LONG, 0));
            assertEquals(2, m.get(JAVA_INT, 8));
            assertEquals(1, m.get(JAVA_INT, 12));
            assertEquals(2, m.get(JAVA_INT, 16));
            assertEquals(2, m.get(JAVA_BYTE, 20));
            assertEquals(32, m.get(JAVA_BYTE, 21));
            assertEquals(1, m.get(JAVA_SHORT, 22));
            assertEquals(8, m.get(JAVA_LONG, 40));
            DLPack.Tensor t = DLPack.read(MemorySegment.ofAddress(m.address()));
            assertEquals(0x7f0000001000L, t.data());
            assertEquals(DLPack.KDL_CUDA, t.deviceType());
            assertEquals(1, t.deviceId());
            assertEquals(2, t.code());
            assertEquals(32, t.bits());
            assertEquals(1, t.lanes());
            assertArrayEquals(new long[] {2, 3}, t.shape());
            assertArrayEquals(new long[] {6, 2}, t.strides());
            assertEquals(8, t.byteOffset());
        }
    }

    @Test
    void nullStridesMeanCContiguous() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = DLPack.write(arena, 0x1000, DLPack.KDL_CUDA, 0, 2, 64,
                    new long[] {4, 5, 6}, new long[] {30, 6, 1}, 0, MemorySegment.NULL);
            m.set(ADDRESS, DLPack.OFF_STRIDES, MemorySegment.NULL);
            assertArrayEquals(new long[] {30, 6, 1}, DLPack.read(m).strides());
        }
    }
}

package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Array;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("gpu")
class GpuArrayGpuTest {

    @BeforeEach
    void needsCuda() {
        GpuTestSupport.requireCuda();
    }

    /** Random carrier data of {@code n} elements of {@code t}. */
    static Object random(DType t, int n, Random rnd) {
        int len = n * t.carrierElementsPerElement();
        Object a = Array.newInstance(t.carrier().componentType(), len);
        for (int i = 0; i < len; i++) {
            switch (a) {
                case byte[] x -> x[i] = (byte) rnd.nextInt();
                case short[] x -> x[i] = (short) rnd.nextInt();
                case int[] x -> x[i] = rnd.nextInt();
                case long[] x -> x[i] = rnd.nextLong();
                case float[] x -> x[i] = rnd.nextFloat() * 2 - 1;
                case double[] x -> x[i] = rnd.nextDouble() * 2 - 1;
                default -> throw new IllegalStateException();
            }
        }
        return a;
    }

    static void assertSame(Object want, Object got) {
        assertTrue(Arrays.deepEquals(new Object[] {want}, new Object[] {got}), "arrays differ");
    }

    @Test
    void everyDtypeRoundTripsThroughGpuArrayAndDeviceArray() {
        Random rnd = new Random(7);
        for (DType t : DType.values()) {
            Object data = random(t, 10_001, rnd);
            try (GpuArray a = GpuArray.toGpu(data, t)) {
                assertEquals(10_001, a.size());
                assertEquals(t, a.dtype());
                assertSame(data, a.get());
            }
            Object host = random(t, 777, rnd);
            Object copy = cloneArray(host);
            try (DeviceArray da = DeviceArray.of(t, host)) {
                assertEquals(CudaError.SUCCESS, da.allocate());
                assertEquals(CudaError.SUCCESS, da.toDevice());
                zero(host);
                assertEquals(CudaError.SUCCESS, da.toHost());
                assertSame(copy, host);
                assertEquals(CudaError.SUCCESS, da.lastStatus());
            }
        }
    }

    private static Object cloneArray(Object a) {
        int n = Array.getLength(a);
        Object c = Array.newInstance(a.getClass().componentType(), n);
        System.arraycopy(a, 0, c, 0, n);
        return c;
    }

    private static void zero(Object a) {
        Object z = Array.newInstance(a.getClass().componentType(), Array.getLength(a));
        System.arraycopy(z, 0, a, 0, Array.getLength(a));
    }

    @Test
    void largeHeapArraysMoveInChunks() {
        float[] big = new float[(int) (3 * DeviceMemory.HEAP_CHUNK / 4) + 123];
        for (int i = 0; i < big.length; i++) big[i] = i;
        try (GpuArray a = GpuArray.toGpu(big)) {
            assertArrayEquals(big, a.toFloatArray());
        }
    }

    @Test
    void shapeStridesAndViews() {
        float[] data = new float[24];
        for (int i = 0; i < 24; i++) data[i] = i;
        try (GpuArray a = GpuArray.toGpu(data, 2, 3, 4)) {
            assertArrayEquals(new long[] {2, 3, 4}, a.shape());
            assertArrayEquals(new long[] {48, 16, 4}, a.strides());
            assertEquals(96, a.nbytes());
            assertTrue(a.isContiguous());
            assertFalse(a.isView());

            GpuArray second = a.at(1);
            assertEquals(a.ptr() + 48, second.ptr());
            assertArrayEquals(new float[] {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, second.toFloatArray());

            // a[1, 0:3:2, ::2] -> rows 0 and 2 of the second block, every other column
            GpuArray v = a.slice(Slice.at(1), Slice.range(0, 3, 2), Slice.every(2));
            assertArrayEquals(new long[] {2, 2}, v.shape());
            assertArrayEquals(new long[] {32, 8}, v.strides());
            assertFalse(v.isContiguous());
            assertArrayEquals(new float[] {12, 14, 20, 22}, v.toFloatArray());

            // a[:, -1] -> last row of each block
            assertArrayEquals(new float[] {8, 9, 10, 11, 20, 21, 22, 23}, a.slice(Slice.all(), Slice.at(-1)).toFloatArray());

            GpuArray r = a.reshape(4, -1);
            assertArrayEquals(new long[] {4, 6}, r.shape());
            assertEquals(a.ptr(), r.ptr());
            try (GpuArray flat = v.reshape(4)) { // numpy: no view can express it, so a copy
                assertFalse(flat.isView());
                assertArrayEquals(new float[] {12, 14, 20, 22}, flat.toFloatArray());
            }
            assertThrows(IndexOutOfBoundsException.class, () -> a.at(2));
            assertThrows(IndexOutOfBoundsException.class, () -> a.slice(Slice.all(), Slice.all(), Slice.all(), Slice.all()));

            // writes through a view land in the base array
            a.slice(Slice.all(), Slice.at(1)).fill(-1.0);
            v.fill(100.0);
            float[] want = data.clone();
            for (int b = 0; b < 2; b++) for (int c = 0; c < 4; c++) want[b * 12 + 4 + c] = -1;
            want[12] = want[14] = want[20] = want[22] = 100;
            assertArrayEquals(want, a.toFloatArray());

            // copy() of a view is compact and independent
            try (GpuArray c = v.copy()) {
                assertTrue(c.isContiguous());
                assertArrayEquals(new long[] {8, 4}, c.strides());
                c.fill(0.0);
                assertArrayEquals(new float[] {100, 100, 100, 100}, v.toFloatArray());
            }
            v.set(new float[] {1, 2, 3, 4});
            assertArrayEquals(new float[] {1, 2, 3, 4}, v.toFloatArray());
            assertEquals(1f, a.toFloatArray()[12]);
            assertEquals(4f, a.toFloatArray()[22]);
        }
    }

    @Test
    void fillEveryDtype() {
        for (DType t : DType.values()) {
            try (GpuArray a = new GpuArray(new long[] {5, 7}, t)) {
                a.fill(3L);
                GpuArray col = a.slice(Slice.all(), Slice.at(2));
                if (t.isFloatingPoint()) col.fill(-2.5); else col.fill(-2L);
                Object got = a.get();
                int per = t.carrierElementsPerElement();
                for (int i = 0; i < 35; i++) {
                    boolean inCol = i % 7 == 2;
                    double want = t == DType.BOOL ? 1 : inCol ? (t.isFloatingPoint() ? -2.5 : -2) : 3; // bool: any non-zero is True
                    double re = value(got, i * per, t);
                    assertEquals(want, re, 0, t + " element " + i);
                    if (per == 2) assertEquals(0, value(got, i * per + 1, t), 0, t + " imaginary " + i);
                }
            }
        }
        try (GpuArray c = new GpuArray(new long[] {3}, DType.COMPLEX64)) {
            c.fill(1.5, -0.5);
            assertArrayEquals(new float[] {1.5f, -0.5f, 1.5f, -0.5f, 1.5f, -0.5f}, c.toFloatArray());
        }
    }

    private static double value(Object a, int i, DType t) {
        return switch (a) {
            case byte[] x -> x[i]; // uint8 -2 reads back as signed -2 too
            case short[] x -> t == DType.FLOAT16 ? Float.float16ToFloat(x[i])
                    : t == DType.BFLOAT16 ? Float.intBitsToFloat(Short.toUnsignedInt(x[i]) << 16) : x[i];
            case int[] x -> x[i];
            case long[] x -> x[i];
            case float[] x -> x[i];
            case double[] x -> x[i];
            default -> throw new IllegalStateException();
        };
    }

    @Test
    void copyFromBetweenTwoStridedViews() {
        int[] src = new int[60];
        for (int i = 0; i < 60; i++) src[i] = i;
        try (GpuArray a = GpuArray.toGpu(src, 6, 10); GpuArray b = GpuArray.zeros(DType.INT32, 4, 12)) {
            GpuArray from = a.slice(Slice.range(1, 6, 2), Slice.range(0, 10, 3)); // 3x4
            GpuArray to = b.slice(Slice.range(0, 3), Slice.range(2, 12, 3));      // 3x4... columns 2,5,8,11
            to.copyFrom(from);
            int[] got = b.toIntArray();
            int[] want = new int[48];
            int[] rows = {1, 3, 5}, cols = {0, 3, 6, 9}, dcols = {2, 5, 8, 11};
            for (int r = 0; r < 3; r++) for (int c = 0; c < 4; c++) want[r * 12 + dcols[c]] = rows[r] * 10 + cols[c];
            assertArrayEquals(want, got);
            assertThrows(IllegalArgumentException.class, () -> b.copyFrom(a));
        }
    }

    @Test
    void dlpackExportAndImportShareMemory() {
        float[] data = {1, 2, 3, 4, 5, 6};
        GpuArray a = GpuArray.toGpu(data, 2, 3);
        int before = GpuArray.liveExports();
        MemorySegment managed = a.slice(Slice.all(), Slice.from(1)).toDlpack();
        assertEquals(before + 1, GpuArray.liveExports());
        GpuArray b = GpuArray.fromDlpack(managed);
        assertArrayEquals(new long[] {2, 2}, b.shape());
        assertArrayEquals(new long[] {12, 4}, b.strides());
        assertEquals(a.ptr() + 4, b.ptr());
        assertArrayEquals(new float[] {2, 3, 5, 6}, b.toFloatArray());
        a.close(); // the export keeps the memory alive
        assertArrayEquals(new float[] {2, 3, 5, 6}, b.toFloatArray());
        b.fill(9.0);
        assertArrayEquals(new float[] {9, 9, 9, 9}, b.toFloatArray());
        b.close(); // calls the deleter: the export ends and the memory is freed
        assertEquals(before, GpuArray.liveExports());
        assertThrows(IllegalStateException.class, b::get);
    }
}

package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class TensorTest extends GpuTestBase {

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = "CUSTOM", mode = EnumSource.Mode.EXCLUDE)
    void everyDataTypeRoundTripsThroughTheGpu(DataType type) {
        int n = 37;
        byte[] bytes = new byte[n * type.byteSize()];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 7 + 3);
        }
        if (type == DataType.BOOL) {
            for (int i = 0; i < n; i++) bytes[i] = (byte) (i % 2);
        }
        try (Tensor src = mgr.tensor(type, MemorySegment.ofArray(bytes), new long[] {n}, MemoryType.DEVICE);
                Tensor dst = mgr.tensor(type, new long[] {n}, MemoryType.DEVICE)) {
            run(new OpSyncDevice(src), new OpCopy(src, dst), new OpSyncLocal(dst));
            assertArrayEquals(bytes, dst.data().toArray(ValueLayout.JAVA_BYTE), type.toString());
            assertEquals(type, dst.dataType());
            assertEquals(n, dst.size());
            assertEquals((long) n * type.byteSize(), dst.byteSize());
        }
    }

    @Test
    void typedArraysInAndOut() {
        try (Tensor f = mgr.tensor(new float[] {1.5f, -2f}, MemoryType.HOST);
                Tensor d = mgr.tensor(new double[] {1e300, -0.25});
                Tensor i = mgr.tensor(new int[] {-7, 1 << 30});
                Tensor l = mgr.tensor(new long[] {Long.MIN_VALUE, 42}, MemoryType.DEVICE);
                Tensor s = mgr.tensor(new short[] {-3, 32767}, MemoryType.DEVICE);
                Tensor b = mgr.tensor(new byte[] {-128, 127}, MemoryType.DEVICE);
                Tensor z = mgr.tensor(new boolean[] {true, false, true}, MemoryType.DEVICE)) {
            assertArrayEquals(new float[] {1.5f, -2f}, f.toFloatArray());
            assertArrayEquals(new double[] {1e300, -0.25}, d.toDoubleArray());
            assertArrayEquals(new int[] {-7, 1 << 30}, i.toIntArray());
            assertArrayEquals(new long[] {Long.MIN_VALUE, 42}, l.toLongArray());
            assertArrayEquals(new short[] {-3, 32767}, s.toShortArray());
            assertArrayEquals(new byte[] {-128, 127}, b.toByteArray());
            assertArrayEquals(new boolean[] {true, false, true}, z.toBooleanArray());
            assertEquals(DataType.FLOAT32, f.dataType());
            assertEquals(DataType.INT64, l.dataType());
            assertEquals(DataType.BOOL, z.dataType());
        }
    }

    @Test
    void unsignedAndHalfPrecision() {
        try (Tensor u = mgr.tensor(DataType.UINT32, new long[] {2}, MemoryType.HOST);
                Tensor h = mgr.tensor(DataType.FLOAT16, new long[] {3}, MemoryType.DEVICE)) {
            u.setData(new int[] {-1, 5});
            assertEquals(4294967295L, Integer.toUnsignedLong(u.toIntArray()[0]));
            h.setData(new float[] {1.5f, -0.25f, 65504f});
            assertArrayEquals(new float[] {1.5f, -0.25f, 65504f}, h.toFloatArray());
            assertEquals((short) 0x3E00, h.toShortArray()[0]);
        }
    }

    @Test
    void largeCopiesInAndOutAreExact() {
        int n = 5_000_000 + 3;   // 20 MiB: split over threads, with a ragged last chunk
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = i * 0.25f;
        try (Tensor t = mgr.tensor(v, MemoryType.HOST); Tensor d = mgr.tensor(DataType.FLOAT32, new long[] {n}, MemoryType.DEVICE)) {
            assertArrayEquals(v, t.toFloatArray());
            d.setData(v);
            run(new OpSyncDevice(d), new OpCopy(d, t));
            assertArrayEquals(v, t.toFloatArray());
        }
    }

    @Test
    void syncShortcutsReuseOneRecording() {
        try (Tensor t = mgr.tensor(new float[] {1, 2, 3}); Tensor probe = mgr.tensor(new float[3], MemoryType.HOST)) {
            for (int k = 0; k < 3; k++) {
                t.setData(new float[] {k, k + 1, k + 2});
                t.syncDevice();
                run(new OpCopy(t, probe));
                assertArrayEquals(new float[] {k, k + 1, k + 2}, probe.toFloatArray());
            }
            probe.setData(new float[] {7, 8, 9});
            run(new OpCopy(probe, t));
            t.syncLocal();
            assertArrayEquals(new float[] {7, 8, 9}, t.toFloatArray());
            probe.syncDevice();   // HOST memory: nothing to do
            assertArrayEquals(new float[] {7, 8, 9}, probe.toFloatArray());
        }
    }

    @Test
    void shapeIsRowMajor() {
        try (Tensor t = mgr.tensor(DataType.FLOAT32, new long[] {2, 3, 4}, MemoryType.HOST)) {
            assertArrayEquals(new long[] {2, 3, 4}, t.shape());
            assertEquals(3, t.rank());
            assertEquals(24, t.size());
            assertArrayEquals(new long[] {48, 16, 4}, t.strides());
        }
    }

    @ParameterizedTest
    @EnumSource(MemoryType.class)
    void newTensorsAreZeroOnTheGpuAndTheHost(MemoryType type) {
        try (Tensor t = mgr.tensor(DataType.INT32, new long[] {1000}, type);
                Tensor probe = mgr.tensor(DataType.INT32, new long[] {1000}, MemoryType.HOST)) {
            for (int k = 0; k < 1000; k++) probe.data().setAtIndex(ValueLayout.JAVA_INT, k, 99);
            run(new OpCopy(t, probe));
            assertArrayEquals(new int[1000], probe.toIntArray());
            if (type != MemoryType.STORAGE) {
                assertArrayEquals(new int[1000], t.toIntArray());
            }
        }
    }

    @Test
    void hostViewIsZeroCopy() {
        try (Tensor t = mgr.tensor(new float[] {1, 2, 3}, MemoryType.HOST)) {
            t.data().setAtIndex(ValueLayout.JAVA_FLOAT, 1, 20f);
            assertArrayEquals(new float[] {1, 20, 3}, t.toFloatArray());
            assertEquals(12, t.data().byteSize());
        }
    }

    @Test
    void customStructs() {
        MemorySegment data = MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
        try (Tensor t = mgr.customTensor(6, data, new long[] {2}, MemoryType.DEVICE);
                Tensor u = mgr.customTensor(6, null, new long[] {2}, MemoryType.DEVICE)) {
            run(new OpSyncDevice(t), new OpCopy(t, u), new OpSyncLocal(u));
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, u.toByteArray());
            assertEquals(DataType.CUSTOM, u.dataType());
            assertEquals(6, u.elementSize());
        }
    }

    @Test
    void stagingComesFromAPoolNotOneAllocationPerTensor() {
        int before = mgr.device().staging().blockCount();
        java.util.List<Tensor> many = new java.util.ArrayList<>();
        for (int k = 0; k < 500; k++) {
            many.add(mgr.tensor(new float[256]));
        }
        assertEquals(Math.max(1, before), mgr.device().staging().blockCount());
        many.forEach(Tensor::close);
    }

    @Test
    void stagingBlocksStartSmallGrowFourfoldAndOneEmptyBlockIsKept() {
        try (Manager fresh = new Manager()) {
            long mib = 1L << 20;
            var staging = fresh.device().staging();
            Tensor small = fresh.tensor(new float[256]);
            assertArrayEquals(new long[] {mib}, staging.blockSizes());
            Tensor big = fresh.tensor(new float[(int) (2 * mib / 4)]); // 2 MiB does not fit the 1 MiB block
            assertArrayEquals(new long[] {mib, 4 * mib}, staging.blockSizes());
            big.close();
            assertArrayEquals(new long[] {mib, 4 * mib}, staging.blockSizes(), "the empty 4 MiB block is kept");
            small.close();
            assertArrayEquals(new long[] {4 * mib}, staging.blockSizes(), "only the largest empty block is kept");
            Tensor again = fresh.tensor(new float[(int) (3 * mib / 4)]);
            assertArrayEquals(new long[] {4 * mib}, staging.blockSizes(), "reused, not a new block");
            again.close();
        }
    }
}

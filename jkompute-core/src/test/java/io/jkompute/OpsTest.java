package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OpsTest extends GpuTestBase {

    @Test
    void syncDeviceAndLocalMoveDataBothWays() {
        try (Tensor a = mgr.tensor(new float[] {1, 2, 3}); Tensor b = mgr.tensor(new float[3])) {
            Algorithm copy = mgr.algorithm(List.of(a, b), Shader.compile(COPY_SHADER));
            run(new OpSyncDevice(a), new OpAlgoDispatch(copy), new OpSyncLocal(b));
            assertArrayEquals(new float[] {1, 2, 3}, b.toFloatArray());
            // without OpSyncDevice the GPU keeps the old values
            a.setData(new float[] {7, 8, 9});
            run(new OpAlgoDispatch(copy), new OpSyncLocal(b));
            assertArrayEquals(new float[] {1, 2, 3}, b.toFloatArray());
            copy.close();
        }
    }

    @Test
    void subRangeSync() {
        try (Tensor a = mgr.tensor(new float[] {1, 2, 3, 4, 5})) {
            run(new OpSyncDevice(a));
            a.setData(new float[] {10, 20, 30, 40, 50});
            run(new OpSyncDevice(a, 1, 2));          // GPU now 1, 20, 30, 4, 5
            a.setData(new float[] {0, 0, 0, 0, 0});
            run(new OpSyncLocal(a, 2, 3));           // host 0, 0, 30, 4, 5
            assertArrayEquals(new float[] {0, 0, 30, 4, 5}, a.toFloatArray());
            run(new OpSyncLocal(a));
            assertArrayEquals(new float[] {1, 20, 30, 4, 5}, a.toFloatArray());
        }
    }

    @Test
    void copyOneToMany() {
        try (Tensor a = mgr.tensor(new int[] {5, 6, 7}); Tensor b = mgr.tensor(new int[3], MemoryType.HOST);
                Tensor c = mgr.tensor(new int[3]); Tensor d = mgr.tensor(DataType.INT32, new long[] {3}, MemoryType.STORAGE)) {
            run(new OpSyncDevice(a), new OpCopy(a, b, c, d), new OpSyncLocal(c));
            assertArrayEquals(new int[] {5, 6, 7}, b.toIntArray());
            assertArrayEquals(new int[] {5, 6, 7}, c.toIntArray());
            try (Tensor e = mgr.tensor(new int[3], MemoryType.HOST)) {
                run(new OpCopy(d, e));
                assertArrayEquals(new int[] {5, 6, 7}, e.toIntArray());
            }
        }
    }

    @Test
    void copyRange() {
        try (Tensor a = mgr.tensor(new float[] {1, 2, 3, 4}, MemoryType.HOST); Tensor b = mgr.tensor(new float[6], MemoryType.HOST)) {
            run(OpCopy.range(a, 1, b, 3, 3));
            assertArrayEquals(new float[] {0, 0, 0, 2, 3, 4}, b.toFloatArray());
        }
    }

    /** Every pair of memory types: source → target, read back through a HOST tensor. */
    @ParameterizedTest
    @EnumSource(MemoryType.class)
    void copiesBetweenEveryMemoryTypePair(MemoryType from) {
        for (MemoryType to : MemoryType.values()) {
            try (Tensor src = mgr.tensor(new float[] {3, 1, 4, 1, 5}, from);
                    Tensor dst = mgr.tensor(DataType.FLOAT32, new long[] {5}, to);
                    Tensor probe = mgr.tensor(new float[5], MemoryType.HOST)) {
                run(new OpSyncDevice(src), new OpCopy(src, dst), new OpCopy(dst, probe));
                assertArrayEquals(new float[] {3, 1, 4, 1, 5}, probe.toFloatArray(), from + " -> " + to);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT32", "INT32", "UINT32", "FLOAT64"})
    void multiply(DataType type) {
        byte[] none = null;
        try (Tensor a = mgr.tensor(type, new long[] {4}, MemoryType.HOST);
                Tensor b = mgr.tensor(type, new long[] {4}, MemoryType.HOST);
                Tensor out = mgr.tensor(type, new long[] {4}, MemoryType.HOST);
                Algorithm algo = mgr.algorithm()) {
            switch (type) {
                case FLOAT32 -> { a.setData(new float[] {1.5f, 2, 3, 4}); b.setData(new float[] {2, 3, 4, -5}); }
                case FLOAT64 -> { a.setData(new double[] {1.5, 2, 3, 4}); b.setData(new double[] {2, 3, 4, -5}); }
                default -> { a.setData(new int[] {1, 2, 3, 4}); b.setData(new int[] {2, 3, 4, 5}); }
            }
            run(new OpMult(a, b, out, algo));
            switch (type) {
                case FLOAT32 -> assertArrayEquals(new float[] {3, 6, 12, -20}, out.toFloatArray());
                case FLOAT64 -> assertArrayEquals(new double[] {3, 6, 12, -20}, out.toDoubleArray());
                default -> assertArrayEquals(new int[] {2, 6, 12, 20}, out.toIntArray());
            }
            assertNull(none);
        }
    }

    @Test
    void dispatchesInOneSequenceAreOrdered() {
        String inc = """
                #version 450
                layout (local_size_x = 1) in;
                layout (set = 0, binding = 0) buffer A { uint a[]; };
                void main() { a[gl_GlobalInvocationID.x] = a[gl_GlobalInvocationID.x] * 2 + 1; }
                """;
        try (Tensor t = mgr.tensor(DataType.UINT32, new long[] {64}, MemoryType.DEVICE);
                Algorithm algo = mgr.algorithm(List.of(t), Shader.compile(inc));
                Sequence s = mgr.sequence()) {
            for (int k = 0; k < 10; k++) {
                s.record(new OpAlgoDispatch(algo));
            }
            s.record(new OpSyncLocal(t)).eval();
            for (int v : t.toIntArray()) {
                assertEquals(1023, v);   // 10 doublings-plus-one in order: 2^10 - 1
            }
        }
    }

    @Test
    void explicitMemoryBarrier() {
        try (Tensor a = mgr.tensor(new float[] {1, 2}); Tensor b = mgr.tensor(new float[2])) {
            Algorithm copy = mgr.algorithm(List.of(a, b), Shader.compile(COPY_SHADER));
            run(new OpSyncDevice(a), new OpMemoryBarrier(a), new OpAlgoDispatch(copy), new OpMemoryBarrier(b),
                    new OpMemoryBarrier(List.of(b), org.lwjgl.vulkan.VK10.VK_ACCESS_SHADER_WRITE_BIT,
                            org.lwjgl.vulkan.VK10.VK_ACCESS_TRANSFER_READ_BIT,
                            org.lwjgl.vulkan.VK10.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            org.lwjgl.vulkan.VK10.VK_PIPELINE_STAGE_TRANSFER_BIT, false),
                    new OpSyncLocal(b));
            assertArrayEquals(new float[] {1, 2}, b.toFloatArray());
            copy.close();
        }
    }
}

package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

class AlgorithmTest extends GpuTestBase {

    @Test
    void workgroupsOf16By8() {
        String shader = """
                #version 450
                layout (local_size_x = 4, local_size_y = 2) in;
                layout (set = 0, binding = 0) buffer O { uint o[]; };
                void main() {
                    uvec3 g = gl_GlobalInvocationID;
                    o[g.y * 64 + g.x] = g.x * 1000 + g.y;
                }
                """;
        // 16 x 8 workgroups of 4 x 2 invocations cover a 64 x 16 grid
        try (Tensor out = mgr.tensor(DataType.UINT32, new long[] {16, 64}, MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(out), Shader.compile(shader), Workgroup.of(16, 8, 1))) {
            assertEquals(new Workgroup(16, 8, 1), algo.workgroup());
            run(new OpAlgoDispatch(algo));
            int[] o = out.toIntArray();
            for (int y = 0; y < 16; y++) {
                for (int x = 0; x < 64; x++) {
                    assertEquals(x * 1000 + y, o[y * 64 + x], "at " + x + "," + y);
                }
            }
        }
    }

    @Test
    void defaultWorkgroupIsTheFirstTensorsSize() {
        try (Tensor a = mgr.tensor(new float[7]); Tensor b = mgr.tensor(new float[7]);
                Algorithm algo = mgr.algorithm(List.of(a, b), Shader.compile(COPY_SHADER))) {
            assertEquals(new Workgroup(7, 1, 1), algo.workgroup());
        }
    }

    static final String CONSTANTS_SHADER = """
            #version 450
            #extension GL_ARB_gpu_shader_fp64 : enable
            layout (local_size_x = 1) in;
            layout (constant_id = 0) const int si = 0;
            layout (constant_id = 1) const uint su = 0;
            layout (constant_id = 2) const float sf = 0;
            layout (constant_id = 3) const double sd = 0;
            layout (push_constant) uniform P { int pi; uint pu; float pf; double pd; } pc;
            layout (set = 0, binding = 0) buffer O { double o[]; };
            void main() {
                o[0] = double(si); o[1] = double(su); o[2] = double(sf); o[3] = sd;
                o[4] = double(pc.pi); o[5] = double(pc.pu); o[6] = double(pc.pf); o[7] = pc.pd;
            }
            """;

    @Test
    void specializationAndPushConstantsOfEveryType() {
        Constants spec = Constants.builder().int32(-3).uint32(4000000000L).float32(2.5f).float64(1e100).build();
        // the push block is std430: double aligned to 8 after three 4-byte members -> 4 bytes of padding
        Constants push = Constants.builder().int32(-7).uint32(3000000000L).float32(0.75f).int32(0).float64(-1e-100).build();
        try (Tensor out = mgr.tensor(new double[8], MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(out), Shader.compile(CONSTANTS_SHADER), Workgroup.of(1), spec, push)) {
            run(new OpAlgoDispatch(algo));
            assertArrayEquals(new double[] {-3, 4000000000.0, 2.5, 1e100, -7, 3000000000.0, 0.75, -1e-100}, out.toDoubleArray());
            assertEquals(spec, algo.specializationConstants());
            assertEquals(push, algo.pushConstants());
        }
    }

    @Test
    void structPushConstants() {
        String shader = """
                #version 450
                layout (local_size_x = 1) in;
                layout (push_constant) uniform P { uint n; float scale; } pc;
                layout (set = 0, binding = 0) buffer O { float o[]; };
                void main() { o[gl_GlobalInvocationID.x] = pc.scale * float(pc.n); }
                """;
        byte[] struct = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(6).putFloat(0.5f).array();
        try (Tensor out = mgr.tensor(new float[2], MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(out), Shader.compile(shader), Workgroup.of(2), Constants.NONE,
                        Constants.struct(struct))) {
            run(new OpAlgoDispatch(algo));
            assertArrayEquals(new float[] {3, 3}, out.toFloatArray());
        }
    }

    @Test
    void rebuildChangesTheShaderAndRecordedSequencesFollow() {
        String plusOne = COPY_SHADER.replace("b[i] = a[i];", "b[i] = a[i] + 1.0;");
        try (Tensor a = mgr.tensor(new float[] {1, 2}, MemoryType.HOST); Tensor b = mgr.tensor(new float[2], MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(a, b), Shader.compile(COPY_SHADER));
                Sequence s = mgr.sequence()) {
            s.record(new OpAlgoDispatch(algo)).eval();
            assertArrayEquals(new float[] {1, 2}, b.toFloatArray());
            algo.rebuild(List.of(a, b), Shader.compile(plusOne), Workgroup.DEFAULT, Constants.NONE, Constants.NONE);
            s.eval();     // re-recorded automatically: the old pipeline is gone
            assertArrayEquals(new float[] {2, 3}, b.toFloatArray());
            s.rerecord().eval();
            assertArrayEquals(new float[] {2, 3}, b.toFloatArray());
        }
    }

    @Test
    void setPushConstantsReachesRecordedSequences() {
        String shader = """
                #version 450
                layout (local_size_x = 1) in;
                layout (push_constant) uniform P { float v; } pc;
                layout (set = 0, binding = 0) buffer O { float o[]; };
                void main() { o[0] = pc.v; }
                """;
        try (Tensor out = mgr.tensor(new float[1], MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(out), Shader.compile(shader), Workgroup.of(1), Constants.NONE,
                        Constants.floats(1f));
                Sequence s = mgr.sequence()) {
            s.record(new OpAlgoDispatch(algo)).eval();
            assertEquals(1f, out.toFloatArray()[0]);
            algo.setPushConstants(Constants.floats(5f));
            s.eval();
            assertEquals(5f, out.toFloatArray()[0]);
            var e = assertThrows(IllegalArgumentException.class, () -> algo.setPushConstants(Constants.floats(1, 2)));
            assertEquals("push constants of 8 bytes given, but " + algo + " was built with 4 bytes of push constants",
                    e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> new OpAlgoDispatch(algo, Constants.doubles(1)));
            assertTrue(e.getMessage().contains("8 bytes given"), e.getMessage());
        }
    }
}

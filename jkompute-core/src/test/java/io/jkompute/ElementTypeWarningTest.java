package io.jkompute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jkompute.internal.SpirvElementTypes;
import io.jkompute.internal.SpirvElementTypes.Scalar;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The element types a shader declares, read from its SPIR-V, and the warning for a tensor of another type. */
class ElementTypeWarningTest extends GpuTestBase {

    @Test
    void reflectsTheScalarOfEachBuffersRuntimeArray() {
        String shader = """
                #version 450
                #extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
                layout (local_size_x = 1) in;
                layout (set = 0, binding = 0) buffer A { float a[]; };
                layout (set = 0, binding = 1) buffer B { uint b[]; };
                layout (set = 0, binding = 2) buffer C { int c[]; };
                layout (set = 0, binding = 3) buffer D { vec4 d[]; };
                layout (set = 0, binding = 5) buffer F { uint count; double f[]; };
                layout (set = 0, binding = 6) buffer G { int64_t g[]; };
                void main() {
                    uint i = gl_GlobalInvocationID.x;
                    a[i] = float(b[i] + uint(c[i])) + d[i].x + float(f[i]) + float(g[i]) + float(count);
                }
                """;
        Map<Integer, Scalar> types = SpirvElementTypes.of(Shader.compile(shader));
        assertEquals(Map.of(0, new Scalar(true, 32, true), 1, new Scalar(false, 32, false),
                2, new Scalar(false, 32, true), 3, new Scalar(true, 32, true), 5, new Scalar(true, 64, true),
                6, new Scalar(false, 64, true)), types);
        assertEquals(Map.of(), SpirvElementTypes.of(new byte[] {1, 2, 3, 4}));
    }

    @Test
    void aUint32TensorOnAFloatBindingWarnsAndStillRuns() {
        // Kompute's tests bind a uint32 tensor to a float shader on purpose: the bits are copied as they are
        try (Tensor a = mgr.tensor(DataType.UINT32, new long[] {3}, MemoryType.DEVICE);
                Tensor b = mgr.tensor(new float[3])) {
            a.setData(new int[] {1, 2, 3});
            try (Algorithm algo = mgr.algorithm(List.of(a, b), Shader.compile(COPY_SHADER))) {
                assertEquals(List.of("binding 0: the shader declares float32 elements, but " + a + " holds uint32; the"
                        + " shader reinterprets its bits"), algo.typeWarnings());
                run(new OpSyncDevice(a), new OpAlgoDispatch(algo), new OpSyncLocal(b));
                assertArrayEquals(new float[] {Float.intBitsToFloat(1), Float.intBitsToFloat(2),
                        Float.intBitsToFloat(3)}, b.toFloatArray());
            }
        }
    }

    @Test
    void matchingTypesAndSignednessAloneGiveNoWarning() {
        String uintShader = """
                #version 450
                layout (local_size_x = 1) in;
                layout (set = 0, binding = 0) buffer A { uint a[]; };
                void main() { a[gl_GlobalInvocationID.x] += 1; }
                """;
        try (Tensor f = mgr.tensor(new float[3]); Tensor g = mgr.tensor(new float[3]);
                Tensor i = mgr.tensor(new int[3]);
                Algorithm copy = mgr.algorithm(List.of(f, g), Shader.compile(COPY_SHADER));
                Algorithm inc = mgr.algorithm(List.of(i), Shader.compile(uintShader))) {
            assertEquals(List.of(), copy.typeWarnings());
            assertEquals(List.of(), inc.typeWarnings());
        }
    }
}

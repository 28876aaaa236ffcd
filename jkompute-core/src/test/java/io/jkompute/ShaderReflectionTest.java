package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code algorithm(...)} reads from the SPIR-V, and the mismatches it refuses before Vulkan sees them. */
class ShaderReflectionTest extends GpuTestBase {
    static final String THREE = """
            #version 450
            layout (local_size_x = 8, local_size_y = 2) in;
            layout (constant_id = 0) const float SCALE = 1.0;
            layout (constant_id = 1) const int OFFSET = 0;
            layout (push_constant) uniform Push { float add; uint count; float mul; } pc;
            layout (binding = 0) buffer In { float a[]; };
            layout (binding = 1, rgba32f) uniform image2D img;
            layout (binding = 2) buffer Out { float o[]; };
            void main() {
                uint i = gl_GlobalInvocationID.x;
                if (i < pc.count) { o[i] = a[i] * SCALE * pc.mul + pc.add + float(OFFSET) + imageLoad(img, ivec2(0, 0)).x; }
            }
            """;

    @Test
    void theShadersInterfaceIsExposed() {
        try (Tensor a = mgr.tensor(new float[4]); Image img = mgr.image(DataType.FLOAT32, 1, 1, 4);
                Tensor o = mgr.tensor(new float[4]);
                Algorithm algo = mgr.algorithm(List.of(a, img, o), Shader.compile(THREE), Workgroup.of(1),
                        Constants.builder().float32(2).int32(1).build(), Constants.builder().float32(0.5f).uint32(4).float32(3).build())) {
            assertEquals(List.of(new ShaderBinding(0, ShaderBinding.Kind.STORAGE_BUFFER, "In"),
                    new ShaderBinding(1, ShaderBinding.Kind.STORAGE_IMAGE, "img"),
                    new ShaderBinding(2, ShaderBinding.Kind.STORAGE_BUFFER, "Out")), algo.bindings());
            assertEquals(12, algo.pushConstantSize());
            assertArrayEquals(new int[] {8, 2, 1}, algo.localSize());
            assertEquals("binding 1 (storage image 'img')", algo.bindings().get(1).toString());
        }
    }

    @Test
    void anEmptyAlgorithmHasNothingReflected() {
        try (Algorithm algo = mgr.algorithm()) {
            assertEquals(List.of(), algo.bindings());
            assertEquals(0, algo.pushConstantSize());
            assertArrayEquals(new int[3], algo.localSize());
        }
    }

    @Test
    void aBindingWithoutATensorIsRefused() {
        try (Tensor a = mgr.tensor(new float[1])) {
            var e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(a), Shader.compile(COPY_SHADER)));
            assertEquals("the shader declares binding 1 (storage buffer 'B'), but 1 tensor(s)/image(s) were given (bindings 0-0)",
                    e.getMessage());
        }
    }

    @Test
    void aTensorWhereTheShaderDeclaresAnImageIsRefusedAndTheReverse() {
        try (Tensor a = mgr.tensor(new float[4]); Tensor notAnImage = mgr.tensor(new float[4]);
                Image img = mgr.image(DataType.FLOAT32, 1, 1, 4); Tensor o = mgr.tensor(new float[4])) {
            Constants spec = Constants.builder().float32(2).int32(1).build();
            Constants push = Constants.builder().float32(0.5f).uint32(4).float32(3).build();
            byte[] spirv = Shader.compile(THREE);
            var e = assertThrows(IllegalArgumentException.class,
                    () -> mgr.algorithm(List.of(a, notAnImage, o), spirv, Workgroup.of(1), spec, push));
            assertEquals("the shader declares binding 1 (storage image 'img'), but a tensor was given at that position: "
                    + notAnImage, e.getMessage());
            e = assertThrows(IllegalArgumentException.class,
                    () -> mgr.algorithm(List.of(a, img, img), spirv, Workgroup.of(1), spec, push));
            assertEquals("the shader declares binding 2 (storage buffer 'Out'), but an image was given at that position: "
                    + img, e.getMessage());
        }
    }

    @Test
    void tooFewPushConstantBytesAreRefusedNamingTheMemberWithoutAValue() {
        try (Tensor a = mgr.tensor(new float[4]); Image img = mgr.image(DataType.FLOAT32, 1, 1, 4); Tensor o = mgr.tensor(new float[4])) {
            var e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(a, img, o), Shader.compile(THREE),
                    Workgroup.of(1), Constants.NONE, Constants.builder().float32(0.5f).uint32(4).build()));
            assertEquals("the shader's push-constant block is 12 bytes (add at offset 0 (float32), count at offset 4 (uint32),"
                    + " mul at offset 8 (float32)), but 8 bytes were given: 'mul' at offset 8 (float32) has no value", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(a, img, o), Shader.compile(THREE),
                    Workgroup.of(1), Constants.NONE, Constants.floats(1, 2, 3, 4)));
            assertEquals("16 bytes of push constants were given, but the shader's push-constant block is 12 bytes (add at"
                    + " offset 0 (float32), count at offset 4 (uint32), mul at offset 8 (float32)): the bytes from offset 12 on"
                    + " have no member", e.getMessage());
        }
    }

    @Test
    void anUndeclaredOrMistypedSpecializationConstantIsRefused() {
        try (Tensor a = mgr.tensor(new float[4]); Image img = mgr.image(DataType.FLOAT32, 1, 1, 4); Tensor o = mgr.tensor(new float[4])) {
            Constants push = Constants.builder().float32(0.5f).uint32(4).float32(3).build();
            var e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(a, img, o), Shader.compile(THREE),
                    Workgroup.of(1), Constants.builder().float32(2).int32(1).float32(7).build(), push));
            assertEquals("specialization constant 2 was given (float32), but the shader declares no constant_id 2 (it declares"
                    + " 0, 1)", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(a, img, o), Shader.compile(THREE),
                    Workgroup.of(1), Constants.ints(2), push));
            assertEquals("specialization constant 0 ('SCALE') is float32 in the shader, but int32 was given", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(a, img, o), Shader.compile(THREE),
                    Workgroup.of(1), Constants.doubles(2, 1), push));
            assertEquals("specialization constant 0 ('SCALE') is float32 in the shader, but float64 was given", e.getMessage());
        }
    }

    @Test
    void rebuildChecksTooAndAFailedRebuildKeepsTheOldPipeline() {
        try (Tensor a = mgr.tensor(new float[] {1, 2}, MemoryType.HOST); Tensor b = mgr.tensor(new float[2], MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(a, b), Shader.compile(COPY_SHADER))) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> algo.rebuild(List.of(a), Shader.compile(COPY_SHADER), Workgroup.of(2), Constants.NONE, Constants.NONE));
            assertEquals("the shader declares binding 1 (storage buffer 'B'), but 1 tensor(s)/image(s) were given (bindings 0-0)",
                    e.getMessage());
            run(new OpAlgoDispatch(algo));
            assertArrayEquals(new float[] {1, 2}, b.toFloatArray());
        }
    }

    @Test
    void bindingsOutsideSetZeroAndUniformBuffersAreRefused() {
        try (Tensor a = mgr.tensor(new float[1])) {
            var e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(a), Shader.compile("""
                    #version 450
                    layout (set = 1, binding = 0) buffer A { float a[]; };
                    void main() { a[0] = 1.0; }
                    """)));
            assertEquals("the shader declares binding 0 (storage buffer 'A') in descriptor set 1; jkompute binds every tensor"
                    + " and image in set 0", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(a), Shader.compile("""
                    #version 450
                    layout (binding = 0) uniform U { float u; };
                    layout (binding = 1) buffer A { float a[]; };
                    void main() { a[0] = u; }
                    """)));
            assertEquals("the shader declares binding 0 (uniform buffer 'U'); jkompute binds tensors as storage buffers and"
                    + " images as storage images", e.getMessage());
        }
    }

    @Test
    void aSpirvModuleSpirvCrossCannotParseIsAnIllegalArgument() {
        byte[] spirv = Shader.compile(COPY_SHADER);
        byte[] cut = java.util.Arrays.copyOf(spirv, 40);   // a valid header, then the first instructions cut short
        var e = assertThrows(IllegalArgumentException.class, () -> io.jkompute.internal.ShaderReflection.of(cut));
        assertTrue(e.getMessage().startsWith("SPIR-V reflection failed: the SPIR-V could not be parsed (SPIRV-Cross: "),
                e.getMessage());
    }
}

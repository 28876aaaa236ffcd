package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kompute's image tests: copies image↔image, tensor↔image and image↔tensor between every pair of memory types, and
 * shaders on host-visible (linear) images. The images are 5 × 3 (odd widths), so linear rows are padded on most devices.
 */
class ImageMemoryTypesTest extends GpuTestBase {
    static final int W = 5;
    static final int H = 3;
    static final float[] DATA = new float[W * H];

    static {
        for (int i = 0; i < DATA.length; i++) DATA[i] = i * 1.5f - 4;
    }

    static Stream<Arguments> pairs() {
        List<Arguments> out = new ArrayList<>();
        for (MemoryType a : MemoryType.values()) {
            for (MemoryType b : MemoryType.values()) {
                out.add(Arguments.of(a, b));
            }
        }
        return out.stream();
    }

    /** A W × H float32 image; a device with no device-local host-visible memory skips DEVICE_AND_HOST, saying so. */
    private Image image(MemoryType type, float[] data) {
        try {
            return mgr.image(DataType.FLOAT32, W, H, 1, type, data == null ? null : MemorySegment.ofArray(data));
        } catch (JkomputeException e) {
            org.junit.jupiter.api.Assumptions.assumeFalse(type == MemoryType.DEVICE_AND_HOST
                    && e.getMessage().contains("has no memory that is device-local and host-visible"), e.getMessage());
            throw e;
        }
    }

    /** A source image holding DATA on the GPU, whatever its memory type. */
    private Image sourceImage(MemoryType type) {
        Image img = image(type, DATA);
        if (type == MemoryType.DEVICE) {
            run(new OpSyncDevice(img));
        }
        return img;
    }

    private Tensor sourceTensor(MemoryType type) {
        Tensor t = mgr.tensor(DATA.clone(), type);
        if (type == MemoryType.DEVICE) {
            run(new OpSyncDevice(t));
        }
        return t;
    }

    /** What {@code m} holds on the GPU, read back through the host by the means its memory type allows. */
    private float[] gpuContents(Memory m) {
        switch (m.memoryType()) {
            case DEVICE -> {
                run(new OpSyncLocal(m));
                return m.toFloatArray();
            }
            case STORAGE -> {
                try (Tensor back = mgr.tensor(new float[(int) m.size()], MemoryType.HOST)) {
                    run(new OpCopy(m, back));
                    return back.toFloatArray();
                }
            }
            default -> {
                return m.toFloatArray();
            }
        }
    }

    @ParameterizedTest(name = "image {0} -> image {1}")
    @MethodSource("pairs")
    void imageToImage(MemoryType from, MemoryType to) {
        try (Image src = sourceImage(from); Image dst = image(to, null)) {
            assertArrayEquals(new float[W * H], gpuContents(dst), "a new image is zero-filled");
            run(new OpCopy(src, dst));
            assertArrayEquals(DATA, gpuContents(dst));
        }
    }

    @ParameterizedTest(name = "tensor {0} -> image {1}")
    @MethodSource("pairs")
    void tensorToImage(MemoryType from, MemoryType to) {
        try (Tensor src = sourceTensor(from); Image dst = image(to, null)) {
            run(new OpCopy(src, dst));
            assertArrayEquals(DATA, gpuContents(dst));
        }
    }

    @ParameterizedTest(name = "image {0} -> tensor {1}")
    @MethodSource("pairs")
    void imageToTensor(MemoryType from, MemoryType to) {
        try (Image src = sourceImage(from); Tensor dst = mgr.tensor(new float[W * H], to)) {
            run(new OpCopy(src, dst));
            assertArrayEquals(DATA, gpuContents(dst));
        }
    }

    @ParameterizedTest(name = "shader on {0} images")
    @MethodSource("io.jkompute.ImageMemoryTypesTest#memoryTypes")
    void aShaderReadsAndWritesImagesOfEveryMemoryType(MemoryType type) {
        String shader = """
                #version 450
                layout (local_size_x = 1, local_size_y = 1) in;
                layout (binding = 0, r32f) uniform readonly image2D src;
                layout (binding = 1, r32f) uniform writeonly image2D dst;
                void main() {
                    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
                    imageStore(dst, p, imageLoad(src, p) * 2.0 + vec4(p.x * 10 + p.y));
                }
                """;
        try (Image a = sourceImage(type); Image b = image(type, null);
                Algorithm algo = mgr.algorithm(List.of(a, b), Shader.compile(shader), Workgroup.of(W, H))) {
            run(new OpAlgoDispatch(algo));
            float[] want = new float[W * H];
            for (int y = 0; y < H; y++) {
                for (int x = 0; x < W; x++) {
                    want[y * W + x] = DATA[y * W + x] * 2 + x * 10 + y;
                }
            }
            assertArrayEquals(want, gpuContents(b));
        }
    }

    static Stream<MemoryType> memoryTypes() {
        return Stream.of(MemoryType.values());
    }

    @Test
    void tilingFollowsTheMemoryTypeUnlessGiven() {
        try (Image host = mgr.image(DataType.FLOAT32, W, H, 1, MemoryType.HOST, null);
                Image both = image(MemoryType.DEVICE_AND_HOST, null);
                Image device = mgr.image(DataType.FLOAT32, W, H, 1, MemoryType.DEVICE, null);
                Image storage = mgr.image(DataType.FLOAT32, W, H, 1, MemoryType.STORAGE, null);
                Image linearDevice = mgr.image(DataType.FLOAT32, W, H, 1, MemoryType.DEVICE, Tiling.LINEAR,
                        MemorySegment.ofArray(DATA))) {
            assertEquals(Tiling.LINEAR, host.tiling());
            assertEquals(Tiling.LINEAR, both.tiling());
            assertEquals(Tiling.OPTIMAL, device.tiling());
            assertEquals(Tiling.OPTIMAL, storage.tiling());
            assertEquals(Tiling.LINEAR, linearDevice.tiling());
            assertEquals(W * 4, device.rowPitch(), "DEVICE staging rows are packed");
            assertTrue(host.rowPitch() >= W * 4, "row pitch " + host.rowPitch());
            run(new OpSyncDevice(linearDevice));
            assertArrayEquals(DATA, gpuContents(linearDevice));
        }
    }

    /** Rows of 3 bytes: linear images pad them (lavapipe to 64 bytes), so reads and writes go row by row. */
    @Test
    void aLinearImageWithPaddedRowsIsReadAndWrittenRowByRow() {
        byte[] bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};   // 3 wide, 4 high, 1 channel
        try (Image img = mgr.image(DataType.UINT8, 3, 4, 1, MemoryType.HOST, MemorySegment.ofArray(bytes));
                Tensor back = mgr.tensor(DataType.UINT8, new long[] {12}, MemoryType.HOST)) {
            assertArrayEquals(bytes, img.toByteArray());
            run(new OpCopy(img, back));
            assertArrayEquals(bytes, back.toByteArray(), "the GPU saw the rows at their pitch");
            if (img.rowPitch() != 3) {
                var e = assertThrows(IllegalStateException.class, img::data);
                assertEquals(img + " has rows padded to " + img.rowPitch() + " bytes (3 bytes of data each), so no packed"
                        + " view of its memory exists; use the typed reads and writes (toFloatArray(), setData(...)), which"
                        + " copy row by row", e.getMessage());
            }
            byte[] reversed = {12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
            img.setData(reversed);
            assertArrayEquals(reversed, img.toByteArray());
            run(new OpCopy(img, back));
            assertArrayEquals(reversed, back.toByteArray());
            back.setData(bytes);
            run(new OpCopy(back, img));
            assertArrayEquals(bytes, img.toByteArray(), "a GPU write lands at the row pitch");
        }
    }

    @Test
    void aHostImageIsClosedCleanly() {
        Image img = mgr.image(DataType.FLOAT32, W, H, 1, MemoryType.HOST, MemorySegment.ofArray(DATA));
        img.close();
        var e = assertThrows(IllegalStateException.class, img::toFloatArray);
        assertEquals(img + " is closed", e.getMessage());
    }

    @Test
    void aFormatWithoutTheNeededFeaturesIsNamedWithItsTilingAndWhatItLacks() {
        assertEquals("GPU X cannot make a float32 image with 4 channel(s) (VK_FORMAT_R32G32B32A32_SFLOAT) and LINEAR tiling:"
                + " the format lacks storage image, transfer source, transfer destination support with LINEAR tiling; use a"
                + " DEVICE image (OPTIMAL tiling) and OpSyncDevice/OpSyncLocal",
                Image.unsupported("GPU X", DataType.FLOAT32, 4, Tiling.LINEAR, 0));
        int transfers = org.lwjgl.vulkan.VK11.VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | org.lwjgl.vulkan.VK11.VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
        assertEquals("GPU X cannot make a uint8 image with 2 channel(s) (VK_FORMAT_R8G8_UINT) and OPTIMAL tiling: the format"
                + " lacks storage image support with OPTIMAL tiling", Image.unsupported("GPU X", DataType.UINT8, 2, Tiling.OPTIMAL, transfers));
        assertNull(Image.unsupported("GPU X", DataType.INT16, 1, Tiling.LINEAR,
                transfers | org.lwjgl.vulkan.VK10.VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT));
    }

    @Test
    void anImageLargerThanTheDeviceAllowsForItsTilingIsRefused() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> mgr.image(DataType.UINT8, 1 << 20, 1, 1, MemoryType.HOST, null));
        assertTrue(e.getMessage().startsWith("a 1048576x1 uint8 image with 1 channel(s) (VK_FORMAT_R8_UINT) and LINEAR tiling"
                + " exceeds " + mgr.deviceProperties().name() + "'s largest, "), e.getMessage());
    }
}

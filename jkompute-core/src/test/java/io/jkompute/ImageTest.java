package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ImageTest extends GpuTestBase {

    @ParameterizedTest
    @CsvSource({"INT8,1", "UINT8,2", "INT16,4", "UINT16,1", "INT32,2", "UINT32,4", "FLOAT32,1", "FLOAT32,4", "FLOAT16,4"})
    void imagesRoundTripThroughTensors(DataType type, int channels) {
        int w = 5;
        int h = 3;
        int n = w * h * channels;
        byte[] bytes = new byte[n * type.byteSize()];
        for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) (i % 61);
        try (Tensor src = mgr.tensor(type, MemorySegment.ofArray(bytes), new long[] {n}, MemoryType.HOST);
                Image img = mgr.image(type, w, h, channels);
                Image img2 = mgr.image(type, w, h, channels, MemoryType.STORAGE, null);
                Tensor back = mgr.tensor(type, new long[] {n}, MemoryType.HOST)) {
            assertEquals(n, img.size());
            run(new OpCopy(src, img), new OpCopy(img, img2), new OpCopy(img2, back), new OpSyncLocal(img));
            assertArrayEquals(bytes, back.data().toArray(ValueLayout.JAVA_BYTE));
            assertArrayEquals(bytes, img.data().toArray(ValueLayout.JAVA_BYTE), "staging after OpSyncLocal");
        }
    }

    @Test
    void shaderReadsAndWritesImages() {
        String shader = """
                #version 450
                layout (local_size_x = 1, local_size_y = 1) in;
                layout (set = 0, binding = 0, r32f) uniform readonly image2D src;
                layout (set = 0, binding = 1, r32f) uniform writeonly image2D dst;
                void main() {
                    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
                    imageStore(dst, p, imageLoad(src, p) * 2.0 + vec4(p.x * 10 + p.y));
                }
                """;
        float[] data = {1, 2, 3, 4, 5, 6};
        try (Image a = mgr.image(data, 3, 2, 1); Image b = mgr.image(DataType.FLOAT32, 3, 2, 1)) {
            Algorithm algo = mgr.algorithm(List.of(a, b), Shader.compile(shader), Workgroup.of(3, 2));
            run(new OpSyncDevice(a), new OpAlgoDispatch(algo), new OpSyncLocal(b));
            // row-major: (x, y) at y*3 + x; value = 2*data + 10x + y
            assertArrayEquals(new float[] {2, 14, 26, 9, 21, 33}, b.toFloatArray());
            assertEquals(3, b.width());
            assertEquals(2, b.height());
            assertEquals(1, b.channels());
            algo.close();
        }
    }

    @Test
    void badImagesAreRejected() {
        var e = assertThrows(IllegalArgumentException.class, () -> mgr.image(DataType.FLOAT32, 4, 4, 3));
        assertTrue(e.getMessage().contains("1, 2 or 4 channels"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> mgr.image(DataType.FLOAT64, 4, 4, 1));
        assertTrue(e.getMessage().contains("cannot hold float64"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> mgr.image(DataType.FLOAT32, 0, 4, 1));
        assertTrue(e.getMessage().contains("must be positive"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> mgr.image(new float[5], 2, 2, 1));
        assertTrue(e.getMessage().contains("needs 16"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> mgr.image(DataType.FLOAT32, 2, 2, 1, MemoryType.HOST, Tiling.OPTIMAL, null));
        assertEquals("a HOST image needs LINEAR tiling: the host cannot address an OPTIMAL-tiled image (OPTIMAL is for"
                + " DEVICE and STORAGE images)", e.getMessage());
        try (Image a = mgr.image(DataType.FLOAT32, 2, 2, 1); Image b = mgr.image(DataType.FLOAT32, 4, 1, 1)) {
            e = assertThrows(IllegalArgumentException.class, () -> new OpCopy(a, b));
            assertTrue(e.getMessage().contains("image sizes differ"), e.getMessage());
        }
    }
}

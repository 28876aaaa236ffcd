package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class ShaderTest {
    @Test
    void compilesToSpirv() {
        byte[] spv = Shader.compile(GpuTestBase.COPY_SHADER);
        assertEquals(0x07230203, ByteBuffer.wrap(spv).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
        assertEquals(0, spv.length % 4);
        assertArrayEquals(spv, Shader.compile(GpuTestBase.COPY_SHADER), "cached result is the same");
    }

    @Test
    void compileErrorsCarryLineNumbers() {
        String bad = """
                #version 450
                layout (local_size_x = 1) in;
                void main() {
                    float x = undefinedThing;
                }
                """;
        var e = assertThrows(ShaderCompileException.class, () -> Shader.compile(bad, "bad.comp"));
        assertTrue(e.getMessage().contains("bad.comp:4: error:"), e.getMessage());
        assertTrue(e.getMessage().contains("undefinedThing"), e.getMessage());
        assertEquals(4, e.errors().get(0).line());
        assertTrue(e.errors().get(0).message().contains("'undefinedThing' : undeclared identifier"), e.errors().toString());
    }

    @Test
    void emptySourceIsRejected() {
        assertEquals("shader source is empty", assertThrows(IllegalArgumentException.class, () -> Shader.compile(" ")).getMessage());
    }
}

package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class DataTypeTest {
    @Test
    void sizesMatchTheirCounterparts() {
        assertEquals(1, DataType.BOOL.byteSize());
        assertEquals(2, DataType.FLOAT16.byteSize());
        assertEquals(4, DataType.UINT32.byteSize());
        assertEquals(8, DataType.INT64.byteSize());
        assertEquals(0, DataType.CUSTOM.byteSize());
        assertTrue(DataType.UINT16.isUnsigned());
        assertFalse(DataType.INT16.isUnsigned());
        assertTrue(DataType.FLOAT16.isFloatingPoint());
        assertEquals("float32", DataType.FLOAT32.toString());
    }
}

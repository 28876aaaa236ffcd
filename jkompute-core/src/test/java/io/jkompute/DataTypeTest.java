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

    @Test
    void complexTypesArePairsOfFloatsAfterCustom() {
        assertEquals(8, DataType.COMPLEX64.byteSize());
        assertEquals(16, DataType.COMPLEX128.byteSize());
        assertEquals("complex64", DataType.COMPLEX64.toString());
        assertEquals("complex128", DataType.COMPLEX128.toString());
        assertFalse(DataType.COMPLEX64.isFloatingPoint(), "not a real type: real-only kernels must refuse it");
        assertFalse(DataType.COMPLEX128.isUnsigned());
        // appended after CUSTOM: the ordinals of the types that existed before do not move
        assertEquals(12, DataType.CUSTOM.ordinal());
        assertEquals(13, DataType.COMPLEX64.ordinal());
    }
}

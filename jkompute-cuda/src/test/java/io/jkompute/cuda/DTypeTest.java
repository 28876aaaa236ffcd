package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jkompute.DataType;
import org.junit.jupiter.api.Test;

class DTypeTest {

    @Test
    void sizesAndCarriers() {
        assertEquals(2, DType.INT16.byteSize());
        assertEquals(2, DType.FLOAT16.byteSize());
        assertEquals(8, DType.COMPLEX64.byteSize());
        assertEquals(16, DType.COMPLEX128.byteSize());
        assertEquals(short[].class, DType.FLOAT16.carrier());
        assertEquals(int[].class, DType.UINT32.carrier());
        assertEquals(float[].class, DType.COMPLEX64.carrier());
        assertEquals(2, DType.COMPLEX128.carrierElementsPerElement());
        assertEquals(1, DType.FLOAT64.carrierElementsPerElement());
        assertEquals("complex64", DType.COMPLEX64.toString());
    }

    @Test
    void dlpackCodesRoundTrip() {
        for (DType t : DType.values()) {
            assertEquals(t, DType.fromDlpack(t.dlpackCode(), t.dlpackBits(), 1));
            assertEquals(t.byteSize() * 8, t.dlpackBits());
        }
        assertEquals(2, DType.FLOAT32.dlpackCode());
        assertEquals(1, DType.UINT64.dlpackCode());
        assertEquals(5, DType.COMPLEX128.dlpackCode());
        assertEquals(DType.BFLOAT16, DType.fromDlpack(4, 16, 1));
        assertEquals(DType.BOOL, DType.fromDlpack(6, 8, 1));
        assertThrows(IllegalArgumentException.class, () -> DType.fromDlpack(4, 32, 1)); // no 32-bit bfloat
        assertThrows(IllegalArgumentException.class, () -> DType.fromDlpack(2, 32, 4)); // float4 vector
    }

    @Test
    void coreDataTypesMap() {
        assertEquals(DType.FLOAT32, DType.of(DataType.FLOAT32));
        assertEquals(DType.UINT16, DType.of(DataType.UINT16));
        assertEquals(DType.UINT8, DType.of(DataType.BOOL));
        assertThrows(IllegalArgumentException.class, () -> DType.of(DataType.CUSTOM));
    }
}

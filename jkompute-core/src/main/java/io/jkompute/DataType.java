package io.jkompute;

/**
 * Element types of tensors and images. {@link #CUSTOM} is a struct whose size is given when the tensor is made.
 */
public enum DataType {
    /** One byte per element, 0 or 1. */
    BOOL(1, "bool"),
    /** Signed 8-bit integer. */
    INT8(1, "int8"),
    /** Unsigned 8-bit integer. */
    UINT8(1, "uint8"),
    /** Signed 16-bit integer. */
    INT16(2, "int16"),
    /** Unsigned 16-bit integer. */
    UINT16(2, "uint16"),
    /** Signed 32-bit integer. */
    INT32(4, "int32"),
    /** Unsigned 32-bit integer (carried as the same bits in Java {@code int}). */
    UINT32(4, "uint32"),
    /** Signed 64-bit integer. */
    INT64(8, "int64"),
    /** Unsigned 64-bit integer (carried as the same bits in Java {@code long}). */
    UINT64(8, "uint64"),
    /** IEEE half precision (carried as raw bits in Java {@code short}, or converted from {@code float}). */
    FLOAT16(2, "float16"),
    /** IEEE single precision. */
    FLOAT32(4, "float32"),
    /** IEEE double precision. */
    FLOAT64(8, "float64"),
    /** A user struct; its element size is given at creation. */
    CUSTOM(0, "custom"),
    /** Two float32, real then imaginary (numpy's and GXF's complex64). */
    COMPLEX64(8, "complex64"),
    /** Two float64, real then imaginary (numpy's and GXF's complex128). */
    COMPLEX128(16, "complex128");

    private final int size;
    private final String label;

    DataType(int size, String label) {
        this.size = size;
        this.label = label;
    }

    /** Bytes per element; 0 for {@link #CUSTOM}, whose size each tensor carries. */
    public int byteSize() {
        return size;
    }

    /** Whether this is a floating-point type. */
    public boolean isFloatingPoint() {
        return this == FLOAT16 || this == FLOAT32 || this == FLOAT64;
    }

    /** Whether this is an unsigned integer type. */
    public boolean isUnsigned() {
        return this == UINT8 || this == UINT16 || this == UINT32 || this == UINT64;
    }

    @Override
    public String toString() {
        return label;
    }
}

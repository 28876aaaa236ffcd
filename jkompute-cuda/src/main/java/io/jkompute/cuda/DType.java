package io.jkompute.cuda;

import io.jkompute.DataType;

/**
 * Element types of device arrays, numpy's names. Java has no unsigned or half-precision arrays, so each type has
 * a Java carrier array: {@code short[]} for int16, uint16 and float16 (raw IEEE half bits, see
 * {@link Float#floatToFloat16}), {@code int[]} for int32 and uint32, {@code long[]} for int64 and uint64,
 * {@code float[]} for float32 and complex64 (interleaved real, imaginary), {@code double[]} for float64 and
 * complex128 (interleaved).
 */
public enum DType {
    /** numpy's {@code int8}; carried in {@code byte[]}. */
    INT8(1, 0, 8, byte[].class),
    /** numpy's {@code uint8}; carried in {@code byte[]} (the same bits). */
    UINT8(1, 1, 8, byte[].class),
    /** numpy's {@code int16}; carried in {@code short[]}. */
    INT16(2, 0, 16, short[].class),
    /** numpy's {@code uint16}; carried in {@code short[]} (the same bits). */
    UINT16(2, 1, 16, short[].class),
    /** numpy's {@code int32}; carried in {@code int[]}. */
    INT32(4, 0, 32, int[].class),
    /** numpy's {@code uint32}; carried in {@code int[]} (the same bits). */
    UINT32(4, 1, 32, int[].class),
    /** numpy's {@code int64}; carried in {@code long[]}. */
    INT64(8, 0, 64, long[].class),
    /** numpy's {@code uint64}; carried in {@code long[]} (the same bits). */
    UINT64(8, 1, 64, long[].class),
    /** numpy's {@code float16} (IEEE half); carried in {@code short[]} as raw bits. */
    FLOAT16(2, 2, 16, short[].class),
    /** numpy's {@code float32}; carried in {@code float[]}. */
    FLOAT32(4, 2, 32, float[].class),
    /** numpy's {@code float64}; carried in {@code double[]}. */
    FLOAT64(8, 2, 64, double[].class),
    /** numpy's {@code complex64}: two float32; carried in {@code float[]}, real and imaginary interleaved. */
    COMPLEX64(8, 5, 64, float[].class),
    /** numpy's {@code complex128}: two float64; carried in {@code double[]}, real and imaginary interleaved. */
    COMPLEX128(16, 5, 128, double[].class),
    /** numpy's {@code bool_}: one byte, 0 or 1 (DLPack kDLBool). */
    BOOL(1, 6, 8, byte[].class),
    /** bfloat16 (DLPack kDLBfloat): the top half of a float32; carried as {@code short[]} bits. */
    BFLOAT16(2, 4, 16, short[].class);

    private final int byteSize;
    private final int dlpackCode;
    private final int dlpackBits;
    private final Class<?> carrier;

    DType(int byteSize, int dlpackCode, int dlpackBits, Class<?> carrier) {
        this.byteSize = byteSize;
        this.dlpackCode = dlpackCode;
        this.dlpackBits = dlpackBits;
        this.carrier = carrier;
    }

    /** Bytes per element. */
    public int byteSize() {
        return byteSize;
    }

    /** The Java array type that carries elements of this type. */
    public Class<?> carrier() {
        return carrier;
    }

    /** Java array elements per element of this type: 2 for the complex types, else 1. */
    public int carrierElementsPerElement() {
        return this == COMPLEX64 || this == COMPLEX128 ? 2 : 1;
    }

    /** Whether this is a complex type. */
    public boolean isComplex() {
        return dlpackCode == 5;
    }

    /** Whether this is a real or complex floating-point type. */
    public boolean isFloatingPoint() {
        return dlpackCode == 2 || dlpackCode == 5 || dlpackCode == 4;
    }

    /** Whether this is a signed or unsigned integer type (not bool). */
    public boolean isInteger() {
        return dlpackCode == 0 || dlpackCode == 1;
    }

    /** Whether this is an unsigned integer type. */
    public boolean isUnsigned() {
        return dlpackCode == 1;
    }

    /** Whether this is numpy's bool. */
    public boolean isBool() {
        return this == BOOL;
    }

    /** DLPack's {@code DLDataTypeCode} (kDLInt 0, kDLUInt 1, kDLFloat 2, kDLComplex 5). */
    public int dlpackCode() {
        return dlpackCode;
    }

    /** DLPack's bit width. */
    public int dlpackBits() {
        return dlpackBits;
    }

    /** The type DLPack {@code (code, bits, lanes)} describes. */
    public static DType fromDlpack(int code, int bits, int lanes) {
        if (lanes != 1) throw new IllegalArgumentException("DLPack vector types (lanes=" + lanes + ") are not supported");
        for (DType t : values()) {
            if (t.dlpackCode == code && t.dlpackBits == bits) return t;
        }
        throw new IllegalArgumentException("unsupported DLPack dtype: code " + code + ", bits " + bits
                + " (supported: int/uint 8-64, float 16/32/64, complex 64/128)");
    }

    /** The DType of a core {@link DataType} (for tensors shared with the Vulkan core). */
    public static DType of(DataType type) {
        return switch (type) {
            case INT8 -> INT8;
            case UINT8, BOOL -> UINT8;
            case INT16 -> INT16;
            case UINT16 -> UINT16;
            case INT32 -> INT32;
            case UINT32 -> UINT32;
            case INT64 -> INT64;
            case UINT64 -> UINT64;
            case FLOAT16 -> FLOAT16;
            case FLOAT32 -> FLOAT32;
            case FLOAT64 -> FLOAT64;
            case COMPLEX64 -> COMPLEX64;
            case COMPLEX128 -> COMPLEX128;
            case CUSTOM -> throw new IllegalArgumentException("a CUSTOM data type has no CUDA element type");
        };
    }

    /** The DType whose carrier is the given Java array's type: int16/int32/int64/float32/float64/int8. */
    static DType ofCarrier(Object javaArray) {
        return switch (javaArray) {
            case byte[] a -> INT8;
            case short[] a -> INT16;
            case int[] a -> INT32;
            case long[] a -> INT64;
            case float[] a -> FLOAT32;
            case double[] a -> FLOAT64;
            case null -> throw new NullPointerException("array");
            default -> throw new IllegalArgumentException("not a primitive numeric array: " + javaArray.getClass().getSimpleName());
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

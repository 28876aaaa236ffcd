package io.jkompute;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Push or specialization constants: a list of typed values (int32, uint32, float32, float64) or one raw struct.
 * Values are laid out one after the other in declaration order; specialization constant i gets {@code constant_id = i}.
 * Unlike Kompute, the types may be mixed.
 */
public final class Constants {
    /** The type of one constant. */
    public enum Type {
        /** A signed 32-bit integer ({@code int} in GLSL), 4 bytes. */
        INT32(4),
        /** An unsigned 32-bit integer ({@code uint} in GLSL), 4 bytes. */
        UINT32(4),
        /** A 32-bit float ({@code float} in GLSL), 4 bytes. */
        FLOAT32(4),
        /** A 64-bit float ({@code double} in GLSL), 8 bytes. */
        FLOAT64(8),
        /** Raw bytes of one user struct, laid out by the caller to match the shader's block. */
        STRUCT(0);

        final int size;

        Type(int size) {
            this.size = size;
        }
    }

    /** No constants: the value for an algorithm that declares no push or specialization constants. */
    public static final Constants NONE = new Constants(List.of(), new byte[0]);

    private final List<Type> types;
    private final byte[] bytes;

    private Constants(List<Type> types, byte[] bytes) {
        this.types = List.copyOf(types);
        this.bytes = bytes;
    }

    /** float32 constants, in order. */
    public static Constants floats(float... v) {
        Builder b = builder();
        for (float f : v) b.float32(f);
        return b.build();
    }

    /** int32 constants, in order. */
    public static Constants ints(int... v) {
        Builder b = builder();
        for (int i : v) b.int32(i);
        return b.build();
    }

    /** uint32 values given as the same bits in ints. */
    public static Constants uints(int... v) {
        Builder b = builder();
        for (int i : v) b.uint32(i);
        return b.build();
    }

    /** float64 constants, in order; the shader must declare them as {@code double}. */
    public static Constants doubles(double... v) {
        Builder b = builder();
        for (double d : v) b.float64(d);
        return b.build();
    }

    /** A raw struct, laid out as the shader's push-constant block declares it (std430 scalar rules). */
    public static Constants struct(byte[] structBytes) {
        if (structBytes.length == 0) {
            throw new IllegalArgumentException("a struct constant cannot be empty");
        }
        return new Constants(List.of(Type.STRUCT), structBytes.clone());
    }

    /** A raw struct from native memory. */
    public static Constants struct(MemorySegment structBytes) {
        return struct(structBytes.toArray(ValueLayout.JAVA_BYTE));
    }

    /** A builder for mixed types in order. */
    public static Builder builder() {
        return new Builder();
    }

    /** Mixed-type constants in order: {@code Constants.builder().uint32(n).float32(a).build()}. */
    public static final class Builder {
        private final List<Type> types = new ArrayList<>();
        private final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();

        /** An empty builder; {@link Constants#builder()} gives one too. */
        public Builder() {
        }

        /** Appends an int32. */
        public Builder int32(int v) {
            return put(Type.INT32, v & 0xffffffffL, 4);
        }

        /** Appends a uint32 given as the same 32 bits in an {@code int}. */
        public Builder uint32(int v) {
            return put(Type.UINT32, v & 0xffffffffL, 4);
        }

        /** Appends a uint32; throws {@link IllegalArgumentException} outside 0..2^32-1. */
        public Builder uint32(long v) {
            if (v < 0 || v > 0xffffffffL) {
                throw new IllegalArgumentException("uint32 constant out of range: " + v);
            }
            return put(Type.UINT32, v, 4);
        }

        /** Appends a float32. */
        public Builder float32(float v) {
            return put(Type.FLOAT32, Float.floatToRawIntBits(v) & 0xffffffffL, 4);
        }

        /** Appends a float64. */
        public Builder float64(double v) {
            return put(Type.FLOAT64, Double.doubleToRawLongBits(v), 8);
        }

        private Builder put(Type t, long bits, int n) {
            types.add(t);
            for (int i = 0; i < n; i++) {
                out.write((int) (bits >>> (8 * i)) & 0xff);
            }
            return this;
        }

        /** The constants appended so far, in order; the builder may go on appending for another build. */
        public Constants build() {
            return new Constants(types, out.toByteArray());
        }
    }

    /** The types in order. */
    public List<Type> types() {
        return types;
    }

    /** Number of values (1 for a struct). */
    public int count() {
        return types.size();
    }

    /** Total size in bytes. */
    public int byteSize() {
        return bytes.length;
    }

    /** Whether there are no constants (no bytes). */
    public boolean isEmpty() {
        return bytes.length == 0;
    }

    /** A copy of the raw little-endian bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    byte[] rawBytes() {
        return bytes;
    }

    /** Byte offset and size of value i (for the specialization map). */
    int offset(int i) {
        int o = 0;
        for (int k = 0; k < i; k++) {
            o += types.get(k).size;
        }
        return o;
    }

    int size(int i) {
        return types.get(i) == Type.STRUCT ? bytes.length : types.get(i).size;
    }

    @Override
    public String toString() {
        return types.isEmpty() ? "Constants[]" : "Constants" + types + " (" + bytes.length + " bytes)";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Constants c && c.types.equals(types) && Arrays.equals(c.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return types.hashCode() * 31 + Arrays.hashCode(bytes);
    }
}

package io.jkompute.cuda.internal;

import io.jkompute.cuda.DType;

/**
 * How each dtype looks in generated CUDA C: its storage type, the type arithmetic is done in, and the conversions
 * between them. float16 and bfloat16 are stored as 16-bit patterns and computed in float, rounded back after every
 * operation (numpy's float16 semantics); the conversions use inline PTX and bit operations so the generated code
 * needs no CUDA headers (NVRTC then compiles it without an include path).
 */
public final class CTypes {
    private CTypes() {}

    /** Helpers every generated kernel starts with. */
    public static final String PRELUDE = """
            typedef unsigned char u8; typedef signed char i8; typedef unsigned short u16; typedef unsigned int u32;
            typedef long long i64; typedef unsigned long long u64;
            template <typename T, int N> struct alignas(sizeof(T) * N) Vec { T v[N]; };
            __device__ __forceinline__ float h2f(u16 h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
            __device__ __forceinline__ u16 f2h(float f) { u16 h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
            __device__ __forceinline__ u16 d2h(double d) { u16 h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); return h; }
            __device__ __forceinline__ float bf2f(u16 b) { return __uint_as_float(((u32) b) << 16); }
            __device__ __forceinline__ u16 f2bf(float f) {
                u32 u = __float_as_uint(f);
                if ((u & 0x7fffffffu) > 0x7f800000u) return (u16) ((u >> 16) | 0x40u);
                u += 0x7fffu + ((u >> 16) & 1u);
                return (u16) (u >> 16);
            }
            __device__ __forceinline__ float rh(float f) { return h2f(f2h(f)); }
            __device__ __forceinline__ float rbf(float f) { return bf2f(f2bf(f)); }
            template <typename T> __device__ __forceinline__ T vmax(T a, T b) { return (a >= b || a != a) ? a : b; }
            template <typename T> __device__ __forceinline__ T vmin(T a, T b) { return (a <= b || a != a) ? a : b; }
            template <typename T> __device__ __forceinline__ T ipow(T b, T e) {
                if (e < 0) return b == 1 ? (T) 1 : b == (T) -1 ? ((e & 1) ? (T) -1 : (T) 1) : (T) 0;
                T r = 1; while (e) { if (e & 1) r *= b; b *= b; e >>= 1; } return r;
            }
            """;

    /** The C type elements are stored as. */
    public static String storage(DType t) {
        return switch (t) {
            case BOOL, UINT8 -> "u8";
            case INT8 -> "i8";
            case INT16 -> "short";
            case UINT16, FLOAT16, BFLOAT16 -> "u16";
            case INT32 -> "int";
            case UINT32 -> "u32";
            case INT64 -> "i64";
            case UINT64 -> "u64";
            case FLOAT32 -> "float";
            case FLOAT64 -> "double";
            case COMPLEX64, COMPLEX128 -> throw new UnsupportedOperationException("complex arrays have no generated kernels");
        };
    }

    /** The C type values of {@code t} are computed in. */
    public static String compute(DType t) {
        return switch (t) {
            case BOOL -> "bool";
            case FLOAT16, BFLOAT16 -> "float";
            default -> storage(t);
        };
    }

    /** A loaded element ({@code expr} of the storage type) as the compute type. */
    public static String load(DType t, String expr) {
        return switch (t) {
            case BOOL -> "(" + expr + " != 0)";
            case FLOAT16 -> "h2f(" + expr + ")";
            case BFLOAT16 -> "bf2f(" + expr + ")";
            default -> expr;
        };
    }

    /** A computed value ({@code expr} of the compute type of {@code t}) as the storage type. */
    public static String store(DType t, String expr) {
        return switch (t) {
            case BOOL -> "(u8) (" + expr + ")";
            case FLOAT16 -> "f2h(" + expr + ")";
            case BFLOAT16 -> "f2bf(" + expr + ")";
            default -> expr;
        };
    }

    /** {@code expr}, a value of compute type {@code from}, converted to the compute type of {@code to}. */
    public static String convert(DType from, DType to, String expr) {
        if (from == to) return expr;
        if (to == DType.BOOL) return "(" + expr + " != 0)";
        if (to == DType.FLOAT16) return from == DType.FLOAT64 ? "h2f(d2h(" + expr + "))" : "rh((float) (" + expr + "))";
        if (to == DType.BFLOAT16) return "rbf((float) (" + expr + "))";
        return "((" + compute(to) + ") (" + expr + "))";
    }

    /** {@code expr} of compute type {@code t} rounded to {@code t}'s precision (float16/bfloat16 after arithmetic). */
    public static String round(DType t, String expr) {
        return switch (t) {
            case FLOAT16 -> "rh(" + expr + ")";
            case BFLOAT16 -> "rbf(" + expr + ")";
            case BOOL -> expr;
            default -> "((" + compute(t) + ") (" + expr + "))";
        };
    }

    /** Whether {@code t} is computed in double precision (selects exp/log vs expf/logf). */
    public static boolean isDouble(DType t) {
        return t == DType.FLOAT64;
    }
}

package io.jkompute.cuda.internal;

import io.jkompute.cuda.DType;

/**
 * numpy 2's type promotion (NEP 50), as pure functions so CI checks them against numpy without a GPU:
 * {@link #result(DType, DType)} is {@code np.result_type} of two arrays, {@link #withScalar} the "weak" rule for a
 * Java literal (numpy's Python scalar: it takes the array's type unless its kind is higher), and the loop types
 * numpy's ufuncs pick for division, transcendental functions and reductions.
 */
public final class Promotion {
    private Promotion() {}

    /** The kind of a Java scalar operand: what numpy calls a Python bool, int or float. */
    public enum ScalarKind { BOOL, INT, FLOAT }

    private static int kind(DType t) {
        if (t.isBool()) return 0;
        if (t.isInteger()) return 1;
        if (t.isComplex()) return 3;
        return 2;
    }

    /** Bytes of an integer type's range, for the int+float and signed+unsigned rules. */
    private static int bits(DType t) {
        return t.byteSize() * 8;
    }

    /** {@code np.result_type(a, b)} for two array dtypes. */
    public static DType result(DType a, DType b) {
        if (a == b) return a;
        int ka = kind(a), kb = kind(b);
        if (ka < kb) return result(b, a);
        // now kind(a) >= kind(b)
        if (kb == 0) return a; // bool with anything: the other type
        if (ka == 1) { // two integers
            if (a.isUnsigned() == b.isUnsigned()) return bits(a) >= bits(b) ? a : b;
            DType s = a.isUnsigned() ? b : a, u = a.isUnsigned() ? a : b;
            if (bits(s) > bits(u)) return s;
            return switch (bits(u)) {
                case 8 -> DType.INT16;
                case 16 -> DType.INT32;
                case 32 -> DType.INT64;
                default -> DType.FLOAT64; // uint64 with any signed integer
            };
        }
        if (ka == 2) {
            DType need = kb == 1 ? floatFor(b) : b;
            return floatMax(a, need);
        }
        // complex with something
        DType realPart = a == DType.COMPLEX64 ? DType.FLOAT32 : DType.FLOAT64;
        DType other = kb == 3 ? (b == DType.COMPLEX64 ? DType.FLOAT32 : DType.FLOAT64) : kb == 1 ? floatFor(b) : b;
        return floatMax(realPart, other) == DType.FLOAT64 ? DType.COMPLEX128 : DType.COMPLEX64;
    }

    /** The smallest float numpy promotes an integer to when it meets a float. */
    private static DType floatFor(DType integer) {
        return switch (bits(integer)) {
            case 8 -> DType.FLOAT16;
            case 16 -> DType.FLOAT32;
            default -> DType.FLOAT64;
        };
    }

    private static DType floatMax(DType a, DType b) {
        if (a == b) return a;
        // bfloat16 and float16 hold different ranges: together they need float32 (ml_dtypes' rule)
        if ((a == DType.BFLOAT16 && b == DType.FLOAT16) || (a == DType.FLOAT16 && b == DType.BFLOAT16)) return DType.FLOAT32;
        if (a == DType.BFLOAT16 && b == DType.FLOAT16) return DType.FLOAT32;
        int ra = floatRank(a), rb = floatRank(b);
        return ra >= rb ? a : b;
    }

    private static int floatRank(DType t) {
        return switch (t) {
            case FLOAT16, BFLOAT16 -> 16;
            case FLOAT32 -> 32;
            default -> 64;
        };
    }

    /**
     * NEP 50's weak scalar rule: an array of {@code array} combined with a Java scalar of {@code kind}. The scalar's
     * kind only matters when it is higher than the array's: int with bool gives int64, float with bool or an
     * integer gives float64; otherwise the array's type wins.
     */
    public static DType withScalar(DType array, ScalarKind kind) {
        int ka = kind(array);
        return switch (kind) {
            case BOOL -> array;
            case INT -> ka == 0 ? DType.INT64 : array;
            case FLOAT -> ka <= 1 ? DType.FLOAT64 : array;
        };
    }

    /** The dtype of a Java scalar on its own (two scalars together): numpy's default int64, float64 or bool. */
    public static DType ofScalar(ScalarKind kind) {
        return switch (kind) {
            case BOOL -> DType.BOOL;
            case INT -> DType.INT64;
            case FLOAT -> DType.FLOAT64;
        };
    }

    /** Throws numpy's OverflowError equivalent when an integer scalar does not fit the integer {@code type}. */
    public static void checkIntegerFits(long value, boolean unsignedValue, DType type) {
        if (!type.isInteger()) return;
        boolean ok;
        if (unsignedValue && value < 0) { // a value of 2^63 or more, given as its unsigned bits
            ok = type == DType.UINT64;
        } else if (type.isUnsigned()) {
            ok = value >= 0 && (bits(type) == 64 || value < (1L << bits(type)));
        } else {
            ok = bits(type) == 64 || (value >= -(1L << (bits(type) - 1)) && value < (1L << (bits(type) - 1)));
        }
        if (!ok) {
            throw new IllegalArgumentException("integer " + (unsignedValue ? Long.toUnsignedString(value) : Long.toString(value))
                    + " is out of bounds for " + type);
        }
    }

    /**
     * The type numpy's transcendental ufuncs ({@code exp}, {@code log}, {@code sqrt}, {@code sin}, {@code cos})
     * and {@code true_divide} compute in: the first of float16/float32/float64 the input casts to safely.
     */
    public static DType floatLoop(DType t) {
        if (t.isFloatingPoint()) return t;
        if (t.isBool()) return DType.FLOAT16;
        return floatFor(t);
    }

    /** {@code true_divide}'s loop: integers and bool divide in float64 (numpy has no float16 loop picked for them). */
    public static DType divideLoop(DType common) {
        return common.isFloatingPoint() ? common : DType.FLOAT64;
    }

    /** numpy's accumulator/result type of {@code sum} and {@code prod}: small integers widen to 64 bits. */
    public static DType sumResult(DType t) {
        if (t.isBool()) return DType.INT64;
        if (t.isInteger()) return t.isUnsigned() ? DType.UINT64 : DType.INT64;
        return t;
    }

    /** numpy's result type of {@code mean}: integers and bool give float64, floats keep their type. */
    public static DType meanResult(DType t) {
        return t.isFloatingPoint() ? t : DType.FLOAT64;
    }
}

package io.jkompute.cuda.internal;

import io.jkompute.cuda.DType;
import io.jkompute.cuda.internal.Promotion.ScalarKind;
import java.util.Arrays;

/**
 * A node of a lazy element-wise expression: array inputs, Java scalars, and operations on them. Each node knows
 * its dtype and shape when it is built (numpy's promotion and broadcasting rules are applied then, so errors come
 * at the call that caused them); the code generator turns a whole tree into one kernel.
 */
public sealed interface Node {
    DType dtype();

    long[] shape();

    /** Whether this is a Java scalar whose type is still "weak" (NEP 50). */
    default boolean weak() {
        return false;
    }

    /** An array operand; {@code ref} identifies it (the same array used twice is one kernel argument). */
    record Input(Object ref, DType dtype, long[] shape) implements Node {}

    /**
     * A Java scalar: {@code bits} holds a long, or a double's raw bits for FLOAT. {@code dtype} is the type it is
     * converted to in the kernel; while {@code weak} it is only provisional.
     */
    record Scalar(ScalarKind kind, long bits, DType dtype, boolean weak) implements Node {
        @Override
        public boolean weak() {
            return weak;
        }

        public static Scalar of(long v) {
            return new Scalar(ScalarKind.INT, v, DType.INT64, true);
        }

        public static Scalar of(double v) {
            return new Scalar(ScalarKind.FLOAT, Double.doubleToRawLongBits(v), DType.FLOAT64, true);
        }

        public static Scalar of(boolean v) {
            return new Scalar(ScalarKind.BOOL, v ? 1 : 0, DType.BOOL, true);
        }

        public double doubleValue() {
            return kind == ScalarKind.FLOAT ? Double.longBitsToDouble(bits) : bits;
        }

        /** This scalar converted to {@code t} (checks that an integer fits, like numpy's OverflowError). */
        public Scalar as(DType t) {
            if (kind == ScalarKind.INT) Promotion.checkIntegerFits(bits, false, t);
            return new Scalar(kind, bits, t, false);
        }

        @Override
        public long[] shape() {
            return new long[0];
        }
    }

    /** A one-operand operation computed in {@code loop} and giving {@code dtype}. */
    record Unary(UnaryOp op, Node x, DType loop, DType dtype, long[] shape) implements Node {}

    /** A two-operand operation whose operands are converted to {@code loop}. */
    record Binary(BinaryOp op, Node a, Node b, DType loop, DType dtype, long[] shape) implements Node {}

    /** {@code where(cond, a, b)}. */
    record Where(Node cond, Node a, Node b, DType dtype, long[] shape) implements Node {}

    /** {@code astype}: conversion with C semantics (numpy's unsafe casting). */
    record Cast(Node x, DType dtype, long[] shape) implements Node {}

    enum UnaryOp { NEG, ABS, EXP, LOG, SQRT, SIN, COS, NOT, COPY }

    enum BinaryOp {
        ADD, SUB, MUL, DIV, POW, MAX, MIN, EQ, NE, LT, LE, GT, GE, AND, OR, XOR;

        boolean comparison() {
            return ordinal() >= EQ.ordinal() && ordinal() <= GE.ordinal();
        }

        boolean logical() {
            return this == AND || this == OR || this == XOR;
        }
    }

    // ---- building with numpy's rules --------------------------------------------------------------------

    static Node unary(UnaryOp op, Node x) {
        DType t = x.dtype();
        if (t.isComplex()) throw new UnsupportedOperationException("element-wise math on complex arrays is not supported: " + op.name().toLowerCase());
        return switch (op) {
            case NEG -> {
                if (t.isBool()) {
                    throw new IllegalArgumentException("the boolean negative is not supported (numpy's rule); use not() for logical negation");
                }
                yield new Unary(op, x, t, t, x.shape());
            }
            case ABS, COPY -> new Unary(op, x, t, t, x.shape());
            case NOT -> new Unary(op, x, DType.BOOL, DType.BOOL, x.shape());
            case EXP, LOG, SQRT, SIN, COS -> {
                DType loop = Promotion.floatLoop(t);
                yield new Unary(op, x, loop, loop, x.shape());
            }
        };
    }

    static Node binary(BinaryOp op, Node a, Node b) {
        if (a.dtype().isComplex() || b.dtype().isComplex()) {
            throw new UnsupportedOperationException("element-wise math on complex arrays is not supported: " + op.name().toLowerCase());
        }
        long[] shape = ArrayLayout.broadcastShapes(a.shape(), b.shape());
        DType common = common(a, b);
        a = resolve(a, common);
        b = resolve(b, common);
        DType loop = switch (op) {
            case DIV -> Promotion.divideLoop(common);
            case AND, OR, XOR -> DType.BOOL;
            default -> common;
        };
        if (loop.isBool() && (op == BinaryOp.SUB)) {
            throw new IllegalArgumentException("numpy boolean subtract is not supported; use xor() instead");
        }
        DType out = op.comparison() || op.logical() ? DType.BOOL : loop;
        return new Binary(op, a, b, loop, out, shape);
    }

    static Node where(Node cond, Node a, Node b) {
        long[] shape = ArrayLayout.broadcastShapes(cond.shape(), a.shape(), b.shape());
        DType common = common(a, b);
        return new Where(resolve(cond, DType.BOOL), resolve(a, common), resolve(b, common), common, shape);
    }

    static Node cast(Node x, DType t) {
        if (t.isComplex() || x.dtype().isComplex()) throw new UnsupportedOperationException("astype to or from complex is not supported");
        if (x instanceof Scalar s) return s.as(t);
        return new Cast(x, t, x.shape());
    }

    /** The common type of two operands: numpy's result_type, with NEP 50's weak rule for Java scalars. */
    static DType common(Node a, Node b) {
        if (a.weak() && b.weak()) {
            Scalar x = (Scalar) a, y = (Scalar) b;
            return Promotion.ofScalar(x.kind().compareTo(y.kind()) >= 0 ? x.kind() : y.kind());
        }
        if (a.weak()) return Promotion.withScalar(b.dtype(), ((Scalar) a).kind());
        if (b.weak()) return Promotion.withScalar(a.dtype(), ((Scalar) b).kind());
        return Promotion.result(a.dtype(), b.dtype());
    }

    private static Node resolve(Node n, DType t) {
        return n instanceof Scalar s && s.weak() ? s.as(t) : n;
    }

    static String shapeString(long[] s) {
        return Arrays.toString(s);
    }
}

package io.jkompute.cuda;

import io.jkompute.cuda.internal.Node.BinaryOp;
import io.jkompute.cuda.internal.Node.UnaryOp;

/**
 * Element-wise array math with numpy's rules, shared by {@link GpuArray} and {@link Expr}: broadcasting, numpy 2
 * type promotion (a Java {@code long}/{@code double}/{@code boolean} operand is a "weak" scalar, like a Python
 * scalar under NEP 50: {@code int8 array * 2} stays int8, {@code int8 array * 2.5} is float64). Every method
 * returns a lazy {@link Expr}; nothing runs until {@link Expr#eval()} (or a reduction, {@code get}, ...), and a
 * chain such as {@code a.mul(2).add(b).exp()} runs as one fused kernel.
 */
public sealed interface ArrayLike permits GpuArray, Expr {
    /** This operand as an expression. */
    Expr expr();

    /** Element-wise sum {@code this + b}. */
    default Expr add(ArrayLike b) { return Expr.binary(BinaryOp.ADD, expr(), b.expr()); }
    /** Element-wise sum {@code this + b} with a weak scalar (as a Python int under NEP 50). */
    default Expr add(long b) { return Expr.binary(BinaryOp.ADD, expr(), Expr.scalar(b)); }
    /** Element-wise sum {@code this + b} with a weak scalar (as a Python float under NEP 50). */
    default Expr add(double b) { return Expr.binary(BinaryOp.ADD, expr(), Expr.scalar(b)); }
    /** Element-wise difference {@code this - b}. */
    default Expr sub(ArrayLike b) { return Expr.binary(BinaryOp.SUB, expr(), b.expr()); }
    /** Element-wise difference {@code this - b} with a weak scalar (as a Python int under NEP 50). */
    default Expr sub(long b) { return Expr.binary(BinaryOp.SUB, expr(), Expr.scalar(b)); }
    /** Element-wise difference {@code this - b} with a weak scalar (as a Python float under NEP 50). */
    default Expr sub(double b) { return Expr.binary(BinaryOp.SUB, expr(), Expr.scalar(b)); }
    /** Element-wise product {@code this * b}. */
    default Expr mul(ArrayLike b) { return Expr.binary(BinaryOp.MUL, expr(), b.expr()); }
    /** Element-wise product {@code this * b} with a weak scalar (as a Python int under NEP 50). */
    default Expr mul(long b) { return Expr.binary(BinaryOp.MUL, expr(), Expr.scalar(b)); }
    /** Element-wise product {@code this * b} with a weak scalar (as a Python float under NEP 50). */
    default Expr mul(double b) { return Expr.binary(BinaryOp.MUL, expr(), Expr.scalar(b)); }
    /** True division ({@code /}): integers divide in float64, as numpy does. */
    default Expr div(ArrayLike b) { return Expr.binary(BinaryOp.DIV, expr(), b.expr()); }
    /**
     * True division {@code this / b}; integers divide in float64, as numpy does with a weak scalar (as a Python int
     * under NEP 50).
     */
    default Expr div(long b) { return Expr.binary(BinaryOp.DIV, expr(), Expr.scalar(b)); }
    /**
     * True division {@code this / b}; integers divide in float64, as numpy does with a weak scalar (as a Python float
     * under NEP 50).
     */
    default Expr div(double b) { return Expr.binary(BinaryOp.DIV, expr(), Expr.scalar(b)); }
    /** Element-wise power {@code this ** b}. */
    default Expr pow(ArrayLike b) { return Expr.binary(BinaryOp.POW, expr(), b.expr()); }
    /** Element-wise power {@code this ** b} with a weak scalar (as a Python int under NEP 50). */
    default Expr pow(long b) { return Expr.binary(BinaryOp.POW, expr(), Expr.scalar(b)); }
    /** Element-wise power {@code this ** b} with a weak scalar (as a Python float under NEP 50). */
    default Expr pow(double b) { return Expr.binary(BinaryOp.POW, expr(), Expr.scalar(b)); }
    /** numpy's {@code maximum} (NaN propagates). */
    default Expr maximum(ArrayLike b) { return Expr.binary(BinaryOp.MAX, expr(), b.expr()); }
    /** numpy's {@code maximum} with {@code b} (NaN propagates) with a weak scalar (as a Python float under NEP 50). */
    default Expr maximum(double b) { return Expr.binary(BinaryOp.MAX, expr(), Expr.scalar(b)); }
    /** numpy's {@code maximum} with {@code b} (NaN propagates) with a weak scalar (as a Python int under NEP 50). */
    default Expr maximum(long b) { return Expr.binary(BinaryOp.MAX, expr(), Expr.scalar(b)); }
    /** numpy's {@code minimum} (NaN propagates). */
    default Expr minimum(ArrayLike b) { return Expr.binary(BinaryOp.MIN, expr(), b.expr()); }
    /** numpy's {@code minimum} with {@code b} (NaN propagates) with a weak scalar (as a Python float under NEP 50). */
    default Expr minimum(double b) { return Expr.binary(BinaryOp.MIN, expr(), Expr.scalar(b)); }
    /** numpy's {@code minimum} with {@code b} (NaN propagates) with a weak scalar (as a Python int under NEP 50). */
    default Expr minimum(long b) { return Expr.binary(BinaryOp.MIN, expr(), Expr.scalar(b)); }

    /** Element-wise {@code this == b}, a bool array. */
    default Expr eq(ArrayLike b) { return Expr.binary(BinaryOp.EQ, expr(), b.expr()); }
    /** Element-wise {@code this == b}, a bool array with a weak scalar (as a Python int under NEP 50). */
    default Expr eq(long b) { return Expr.binary(BinaryOp.EQ, expr(), Expr.scalar(b)); }
    /** Element-wise {@code this == b}, a bool array with a weak scalar (as a Python float under NEP 50). */
    default Expr eq(double b) { return Expr.binary(BinaryOp.EQ, expr(), Expr.scalar(b)); }
    /** Element-wise {@code this != b}, a bool array. */
    default Expr ne(ArrayLike b) { return Expr.binary(BinaryOp.NE, expr(), b.expr()); }
    /** Element-wise {@code this != b}, a bool array with a weak scalar (as a Python int under NEP 50). */
    default Expr ne(long b) { return Expr.binary(BinaryOp.NE, expr(), Expr.scalar(b)); }
    /** Element-wise {@code this != b}, a bool array with a weak scalar (as a Python float under NEP 50). */
    default Expr ne(double b) { return Expr.binary(BinaryOp.NE, expr(), Expr.scalar(b)); }
    /** Element-wise {@code this < b}, a bool array. */
    default Expr lt(ArrayLike b) { return Expr.binary(BinaryOp.LT, expr(), b.expr()); }
    /** Element-wise {@code this < b}, a bool array with a weak scalar (as a Python int under NEP 50). */
    default Expr lt(long b) { return Expr.binary(BinaryOp.LT, expr(), Expr.scalar(b)); }
    /** Element-wise {@code this < b}, a bool array with a weak scalar (as a Python float under NEP 50). */
    default Expr lt(double b) { return Expr.binary(BinaryOp.LT, expr(), Expr.scalar(b)); }
    /** Element-wise {@code this <= b}, a bool array. */
    default Expr le(ArrayLike b) { return Expr.binary(BinaryOp.LE, expr(), b.expr()); }
    /** Element-wise {@code this <= b}, a bool array with a weak scalar (as a Python int under NEP 50). */
    default Expr le(long b) { return Expr.binary(BinaryOp.LE, expr(), Expr.scalar(b)); }
    /** Element-wise {@code this <= b}, a bool array with a weak scalar (as a Python float under NEP 50). */
    default Expr le(double b) { return Expr.binary(BinaryOp.LE, expr(), Expr.scalar(b)); }
    /** Element-wise {@code this > b}, a bool array. */
    default Expr gt(ArrayLike b) { return Expr.binary(BinaryOp.GT, expr(), b.expr()); }
    /** Element-wise {@code this > b}, a bool array with a weak scalar (as a Python int under NEP 50). */
    default Expr gt(long b) { return Expr.binary(BinaryOp.GT, expr(), Expr.scalar(b)); }
    /** Element-wise {@code this > b}, a bool array with a weak scalar (as a Python float under NEP 50). */
    default Expr gt(double b) { return Expr.binary(BinaryOp.GT, expr(), Expr.scalar(b)); }
    /** Element-wise {@code this >= b}, a bool array. */
    default Expr ge(ArrayLike b) { return Expr.binary(BinaryOp.GE, expr(), b.expr()); }
    /** Element-wise {@code this >= b}, a bool array with a weak scalar (as a Python int under NEP 50). */
    default Expr ge(long b) { return Expr.binary(BinaryOp.GE, expr(), Expr.scalar(b)); }
    /** Element-wise {@code this >= b}, a bool array with a weak scalar (as a Python float under NEP 50). */
    default Expr ge(double b) { return Expr.binary(BinaryOp.GE, expr(), Expr.scalar(b)); }

    /** numpy's {@code logical_and}. */
    default Expr and(ArrayLike b) { return Expr.binary(BinaryOp.AND, expr(), b.expr()); }
    /** numpy's {@code logical_or}. */
    default Expr or(ArrayLike b) { return Expr.binary(BinaryOp.OR, expr(), b.expr()); }
    /** numpy's {@code logical_xor}. */
    default Expr xor(ArrayLike b) { return Expr.binary(BinaryOp.XOR, expr(), b.expr()); }
    /** numpy's {@code logical_not}. */
    default Expr not() { return Expr.unary(UnaryOp.NOT, expr()); }

    /** Element-wise negation {@code -this}. */
    default Expr neg() { return Expr.unary(UnaryOp.NEG, expr()); }
    /** Element-wise absolute value (numpy's {@code abs}). */
    default Expr abs() { return Expr.unary(UnaryOp.ABS, expr()); }
    /** Element-wise {@code e^x} (numpy's {@code exp}). */
    default Expr exp() { return Expr.unary(UnaryOp.EXP, expr()); }
    /** Element-wise natural logarithm (numpy's {@code log}). */
    default Expr log() { return Expr.unary(UnaryOp.LOG, expr()); }
    /** Element-wise square root (numpy's {@code sqrt}). */
    default Expr sqrt() { return Expr.unary(UnaryOp.SQRT, expr()); }
    /** Element-wise sine, in radians (numpy's {@code sin}). */
    default Expr sin() { return Expr.unary(UnaryOp.SIN, expr()); }
    /** Element-wise cosine, in radians (numpy's {@code cos}). */
    default Expr cos() { return Expr.unary(UnaryOp.COS, expr()); }

    /** numpy's {@code clip(a, lo, hi)} = {@code minimum(maximum(a, lo), hi)}. */
    default Expr clip(double lo, double hi) { return maximum(lo).minimum(hi); }
    /** numpy's {@code clip(a, lo, hi)} with scalar bounds. */
    default Expr clip(long lo, long hi) { return maximum(lo).minimum(hi); }
    /** numpy's {@code clip(a, lo, hi)} with array bounds (broadcast). */
    default Expr clip(ArrayLike lo, ArrayLike hi) { return maximum(lo).minimum(hi); }

    /** The elements converted to {@code t} (numpy's {@code astype}, unsafe casting: C conversion rules). */
    default Expr astype(DType t) { return Expr.cast(expr(), t); }
}

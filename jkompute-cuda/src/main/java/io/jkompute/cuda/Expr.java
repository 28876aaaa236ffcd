package io.jkompute.cuda;

import io.jkompute.cuda.internal.ArrayLayout;
import io.jkompute.cuda.internal.ElementwiseKernel;
import io.jkompute.cuda.internal.Node;
import io.jkompute.cuda.internal.Node.BinaryOp;
import io.jkompute.cuda.internal.Node.Scalar;
import io.jkompute.cuda.internal.Node.UnaryOp;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;

/**
 * A lazy element-wise expression over {@link GpuArray}s (numpy semantics, see {@link ArrayLike}). Its dtype and
 * shape are known at once; {@link #eval()} generates one CUDA kernel for the whole tree (compiled by NVRTC once per
 * expression, types and layout, then cached), queues it on a stream and returns the result array without waiting.
 * The arrays an expression reads must stay open until it is evaluated.
 */
public final class Expr implements ArrayLike {
    private static final int BLOCK = 256;

    final Node node;

    private Expr(Node node) {
        this.node = node;
    }

    /** The array as an expression leaf. */
    public static Expr of(GpuArray a) {
        return new Expr(new Node.Input(a, a.dtype(), a.shape()));
    }

    /** A Java integer as a weak scalar (numpy's Python int). */
    public static Expr scalar(long v) {
        return new Expr(Scalar.of(v));
    }

    /** A Java floating-point value as a weak scalar (numpy's Python float). */
    public static Expr scalar(double v) {
        return new Expr(Scalar.of(v));
    }

    /** A Java boolean as a weak scalar. */
    public static Expr scalar(boolean v) {
        return new Expr(Scalar.of(v));
    }

    /** numpy's {@code where(cond, a, b)}: {@code a} where {@code cond} is true, else {@code b}. */
    public static Expr where(ArrayLike cond, ArrayLike a, ArrayLike b) {
        return new Expr(nodeWhere(cond.expr().node, a.expr().node, b.expr().node));
    }

    /** {@code where} with scalar branches. */
    public static Expr where(ArrayLike cond, double a, double b) {
        return where(cond, scalar(a), scalar(b));
    }

    static Expr binary(BinaryOp op, Expr a, Expr b) {
        return new Expr(nodeBinary(op, a.node, b.node));
    }

    static Expr unary(UnaryOp op, Expr a) {
        return new Expr(nodeUnary(op, a.node));
    }

    static Expr cast(Expr a, DType t) {
        return new Expr(nodeCast(a.node, t));
    }

    private static Node nodeBinary(BinaryOp op, Node a, Node b) {
        return Node.binary(op, a, b);
    }

    private static Node nodeUnary(UnaryOp op, Node a) {
        return Node.unary(op, a);
    }

    private static Node nodeCast(Node a, DType t) {
        return Node.cast(a, t);
    }

    private static Node nodeWhere(Node c, Node a, Node b) {
        return Node.where(c, a, b);
    }

    @Override
    public Expr expr() {
        return this;
    }

    /** The dtype the expression produces (numpy's result type). */
    public DType dtype() {
        return node.dtype();
    }

    /** The broadcast shape of the result. */
    public long[] shape() {
        return node.shape().clone();
    }

    /** Evaluates into a new C-contiguous array on the default stream (returns without waiting for the GPU). */
    public GpuArray eval() {
        return eval(null);
    }

    /** Evaluates into a new C-contiguous array, queued on {@code stream} (null: the default stream). */
    public GpuArray eval(Stream stream) {
        GpuArray any = firstArray(node);
        if (any == null) throw new IllegalStateException("an expression of scalars alone has no array to evaluate on");
        GpuArray out = GpuArray.pooled(any.device(), dtype(), node.shape());
        try {
            launch(out, stream);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    /**
     * Evaluates into {@code out} (numpy's {@code out=}, and in-place updates such as {@code a.assign(a.mul(2))}): the
     * result must broadcast to {@code out}'s shape and cast to its dtype under numpy's "same_kind" rule.
     */
    public void evalInto(GpuArray out, Stream stream) {
        long[] target = out.shape();
        long[] b = ArrayLayout.broadcastShapes(node.shape(), target);
        if (!Arrays.equals(b, target)) {
            throw new IllegalArgumentException("result of shape " + Arrays.toString(node.shape()) + " cannot be written to an array of shape " + Arrays.toString(target));
        }
        if (!sameKind(dtype(), out.dtype())) {
            throw new IllegalArgumentException("cannot cast the result from " + dtype() + " to " + out.dtype() + " with casting rule 'same_kind'; astype() it first");
        }
        // an input that overlaps the output at other positions would be overwritten before it is read: go via a copy
        if (overlapsShifted(node, out)) {
            try (GpuArray tmp = eval(stream)) {
                Expr.of(tmp).launch(out, stream);
            }
            return;
        }
        launch(out, stream);
    }

    /** {@link #evalInto(GpuArray, Stream)} on the default stream. */
    public void evalInto(GpuArray out) {
        evalInto(out, null);
    }

    static boolean sameKind(DType from, DType to) {
        return rank(from) <= rank(to);
    }

    private static int rank(DType t) {
        if (t.isBool()) return 0;
        if (t.isInteger()) return 1;
        if (t.isComplex()) return 3;
        return 2;
    }

    private static boolean overlapsShifted(Node n, GpuArray out) {
        return switch (n) {
            case Node.Input in -> {
                GpuArray a = (GpuArray) in.ref();
                yield a.sharesMemory(out) && !a.layout().broadcastTo(out.shape()).equals(out.layout());
            }
            case Node.Scalar s -> false;
            case Node.Unary u -> overlapsShifted(u.x(), out);
            case Node.Cast c -> overlapsShifted(c.x(), out);
            case Node.Binary x -> overlapsShifted(x.a(), out) || overlapsShifted(x.b(), out);
            case Node.Where w -> overlapsShifted(w.cond(), out) || overlapsShifted(w.a(), out) || overlapsShifted(w.b(), out);
        };
    }

    private static GpuArray firstArray(Node n) {
        return switch (n) {
            case Node.Input in -> (GpuArray) in.ref();
            case Node.Scalar s -> null;
            case Node.Unary u -> firstArray(u.x());
            case Node.Cast c -> firstArray(c.x());
            case Node.Binary x -> {
                GpuArray a = firstArray(x.a());
                yield a != null ? a : firstArray(x.b());
            }
            case Node.Where w -> {
                GpuArray a = firstArray(w.cond());
                if (a == null) a = firstArray(w.a());
                yield a != null ? a : firstArray(w.b());
            }
        };
    }

    private void launch(GpuArray out, Stream stream) {
        if (out.size() == 0) return;
        IdentityHashMap<Object, ElementwiseKernel.Operand> ops = new IdentityHashMap<>();
        collect(node, ops, out.device());
        ElementwiseKernel.Plan plan = ElementwiseKernel.plan(node, out.dtype(), new ElementwiseKernel.Operand(out.layout(), out.ptr()), ops);
        run(plan, out, stream);
    }

    static void run(ElementwiseKernel.Plan plan, GpuArray out, Stream stream) {
        int dev = out.device();
        Kernel k = GpuArray.onDevice(dev, () -> KernelCache.get(dev, plan.key(), ElementwiseKernel.NAME, plan::source));
        List<Object> inputs = plan.inputs();
        List<Scalar> scalars = plan.scalars();
        Object[] args = new Object[2 + inputs.size() + scalars.size()];
        args[0] = plan.n();
        args[1] = out.ptr();
        for (int i = 0; i < inputs.size(); i++) args[2 + i] = ((GpuArray) inputs.get(i)).ptr();
        for (int i = 0; i < scalars.size(); i++) args[2 + inputs.size() + i] = ElementwiseKernel.scalarArgument(scalars.get(i));
        long work = (plan.n() + plan.vector() - 1) / plan.vector();
        long blocks = Math.max(1, Math.min((work + BLOCK - 1) / BLOCK, 32L * GpuArray.multiprocessors(dev)));
        k.launch(stream, Dim3.of((int) blocks), Dim3.of(BLOCK), 0, args);
    }

    private static void collect(Node n, IdentityHashMap<Object, ElementwiseKernel.Operand> ops, int device) {
        switch (n) {
            case Node.Input in -> {
                GpuArray a = (GpuArray) in.ref();
                if (a.device() != device) {
                    throw new IllegalArgumentException("operands on devices " + a.device() + " and " + device + ": copy one first");
                }
                ops.putIfAbsent(a, new ElementwiseKernel.Operand(a.layout(), a.ptr()));
            }
            case Node.Scalar s -> { }
            case Node.Unary u -> collect(u.x(), ops, device);
            case Node.Cast c -> collect(c.x(), ops, device);
            case Node.Binary x -> {
                collect(x.a(), ops, device);
                collect(x.b(), ops, device);
            }
            case Node.Where w -> {
                collect(w.cond(), ops, device);
                collect(w.a(), ops, device);
                collect(w.b(), ops, device);
            }
        }
    }

    // reductions of an expression: evaluated into a pooled temporary first (freed in stream order)

    /** Evaluates this expression, then {@link GpuArray#sum(int...)} of the result (the temporary is freed). */
    public GpuArray sum(int... axes) {
        try (GpuArray t = eval()) { return t.sum(axes); }
    }

    /** Evaluates this expression, then {@link GpuArray#mean(int...)} of the result (the temporary is freed). */
    public GpuArray mean(int... axes) {
        try (GpuArray t = eval()) { return t.mean(axes); }
    }

    /** Evaluates this expression, then {@link GpuArray#max(int...)} of the result (the temporary is freed). */
    public GpuArray max(int... axes) {
        try (GpuArray t = eval()) { return t.max(axes); }
    }

    /** Evaluates this expression, then {@link GpuArray#min(int...)} of the result (the temporary is freed). */
    public GpuArray min(int... axes) {
        try (GpuArray t = eval()) { return t.min(axes); }
    }

    /** Evaluates this expression, then {@link GpuArray#any(int...)} of the result (the temporary is freed). */
    public GpuArray any(int... axes) {
        try (GpuArray t = eval()) { return t.any(axes); }
    }

    /** Evaluates this expression, then {@link GpuArray#all(int...)} of the result (the temporary is freed). */
    public GpuArray all(int... axes) {
        try (GpuArray t = eval()) { return t.all(axes); }
    }

    /** The generated CUDA C for evaluating this expression into a new array (for inspection and tests). */
    public String source() {
        IdentityHashMap<Object, ElementwiseKernel.Operand> ops = new IdentityHashMap<>();
        collectLayouts(node, ops);
        ArrayLayout l = ArrayLayout.contiguous(node.shape());
        return ElementwiseKernel.plan(node, dtype(), new ElementwiseKernel.Operand(l, 0), ops).source();
    }

    private static void collectLayouts(Node n, IdentityHashMap<Object, ElementwiseKernel.Operand> ops) {
        switch (n) {
            case Node.Input in -> {
                GpuArray a = (GpuArray) in.ref();
                ops.putIfAbsent(a, new ElementwiseKernel.Operand(a.layout(), 0));
            }
            case Node.Scalar s -> { }
            case Node.Unary u -> collectLayouts(u.x(), ops);
            case Node.Cast c -> collectLayouts(c.x(), ops);
            case Node.Binary x -> {
                collectLayouts(x.a(), ops);
                collectLayouts(x.b(), ops);
            }
            case Node.Where w -> {
                collectLayouts(w.cond(), ops);
                collectLayouts(w.a(), ops);
                collectLayouts(w.b(), ops);
            }
        }
    }

    @Override
    public String toString() {
        return "Expr(shape=" + Arrays.toString(node.shape()) + ", dtype=" + dtype() + ")";
    }
}

package io.jkompute.cuda.internal;

import io.jkompute.cuda.DType;
import io.jkompute.cuda.internal.Node.Binary;
import io.jkompute.cuda.internal.Node.Cast;
import io.jkompute.cuda.internal.Node.Input;
import io.jkompute.cuda.internal.Node.Scalar;
import io.jkompute.cuda.internal.Node.Unary;
import io.jkompute.cuda.internal.Node.Where;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns an expression tree into one CUDA C kernel that reads every input once and writes the output once (a fused
 * kernel). Two shapes of kernel:
 * <ul>
 * <li>dense: every operand has the output's strides and they are dense (C or F order), so the element index is
 * the memory index; each thread moves {@code 16 / largest element size} elements with one 16-byte load per operand
 * (when every pointer is aligned for it), in a grid-stride loop;</li>
 * <li>strided: broadcasting, views, negative strides; dimensions that are contiguous for every operand are merged
 * and the remaining shape and strides are compiled in as constants.</li>
 * </ul>
 * The {@link Plan#key()} names everything the source depends on (operations, types, the dense/strided choice and,
 * for strided kernels, the merged shape and strides), so compiled kernels are cached by it without generating the
 * source again.
 */
public final class ElementwiseKernel {
    private ElementwiseKernel() {}

    /** Where an array operand lies: its layout in elements and its first element's device address. */
    public record Operand(ArrayLayout layout, long ptr) {}

    /**
     * A kernel ready to compile and launch. Launch arguments: {@code n}, the output pointer, {@code inputs} in
     * order (their pointers), then {@code scalars} in order (their values as {@link #scalarArgument}).
     */
    public record Plan(String key, Node root, DType outType, List<Object> inputs, List<Scalar> scalars, boolean dense,
                       int vector, long n, long[] shape, long[][] strides) {
        /** The CUDA C source (generated on demand: only a cache miss needs it). */
        public String source() {
            return generate(this);
        }
    }

    public static final String NAME = "jk_elementwise";

    /** Plans the kernel that computes {@code root} into {@code out}, a layout of {@code root}'s shape. */
    public static Plan plan(Node root, DType outType, Operand out, Map<Object, Operand> operands) {
        List<Object> inputs = new ArrayList<>();
        List<Scalar> scalars = new ArrayList<>();
        IdentityHashMap<Object, Integer> slots = new IdentityHashMap<>();
        StringBuilder sig = new StringBuilder();
        signature(root, inputs, scalars, slots, sig);
        long[] shape = out.layout().shape();
        long n = out.layout().size();
        int k = inputs.size();
        ArrayLayout[] ls = new ArrayLayout[k + 1];
        ls[0] = out.layout();
        for (int i = 0; i < k; i++) {
            Operand o = operands.get(inputs.get(i));
            if (o == null) throw new IllegalArgumentException("no operand for input " + i);
            ls[i + 1] = o.layout().broadcastTo(shape);
        }
        boolean dense = out.layout().isContiguous() || out.layout().isFortranContiguous();
        for (int i = 1; i <= k && dense; i++) {
            if (!sameStrides(ls[i], ls[0])) dense = false;
        }
        int maxBytes = outType.byteSize();
        for (Object in : inputs) maxBytes = Math.max(maxBytes, byteSize(root, in));
        sig.append("->").append(outType);
        if (dense) {
            int v = Math.max(1, 16 / maxBytes);
            if (!aligned(out.ptr(), v * outType.byteSize())) v = 1;
            for (int i = 0; i < k && v > 1; i++) {
                if (!aligned(operands.get(inputs.get(i)).ptr(), v * byteSize(root, inputs.get(i)))) v = 1;
            }
            sig.append("|dense|v").append(v);
            return new Plan(sig.toString(), root, outType, inputs, scalars, true, v, n, new long[] {n}, null);
        }
        // strided: drop size-1 dimensions, merge neighbours contiguous for every operand
        List<long[]> dims = new ArrayList<>(); // each: {size, stride_0, ..., stride_k}
        for (int d = 0; d < shape.length; d++) {
            if (shape[d] == 1) continue;
            long[] e = new long[k + 2];
            e[0] = shape[d];
            for (int i = 0; i <= k; i++) e[i + 1] = ls[i].strides()[d];
            if (!dims.isEmpty()) {
                long[] prev = dims.get(dims.size() - 1);
                boolean merge = true;
                for (int i = 1; i <= k + 1 && merge; i++) if (prev[i] != e[i] * e[0]) merge = false;
                if (merge) {
                    prev[0] *= e[0];
                    for (int i = 1; i <= k + 1; i++) prev[i] = e[i];
                    continue;
                }
            }
            dims.add(e);
        }
        long[] mshape = new long[dims.size()];
        long[][] mstrides = new long[k + 1][dims.size()];
        for (int d = 0; d < dims.size(); d++) {
            mshape[d] = dims.get(d)[0];
            for (int i = 0; i <= k; i++) mstrides[i][d] = dims.get(d)[i + 1];
        }
        sig.append("|strided|").append(java.util.Arrays.toString(mshape));
        for (long[] st : mstrides) sig.append(java.util.Arrays.toString(st));
        return new Plan(sig.toString(), root, outType, inputs, scalars, false, 1, n, mshape, mstrides);
    }

    private static boolean sameStrides(ArrayLayout a, ArrayLayout b) {
        long[] sa = a.strides(), sb = b.strides(), sh = a.shape();
        for (int i = 0; i < sh.length; i++) if (sh[i] > 1 && sa[i] != sb[i]) return false;
        return true;
    }

    private static boolean aligned(long ptr, long bytes) {
        return bytes <= 1 || ptr % bytes == 0;
    }

    private static int byteSize(Node root, Object ref) {
        Input in = findInput(root, ref);
        return in.dtype().byteSize();
    }

    private static Input findInput(Node n, Object ref) {
        return switch (n) {
            case Input i -> i.ref() == ref ? i : null;
            case Scalar s -> null;
            case Unary u -> findInput(u.x(), ref);
            case Cast c -> findInput(c.x(), ref);
            case Binary b -> {
                Input x = findInput(b.a(), ref);
                yield x != null ? x : findInput(b.b(), ref);
            }
            case Where w -> {
                Input x = findInput(w.cond(), ref);
                if (x == null) x = findInput(w.a(), ref);
                yield x != null ? x : findInput(w.b(), ref);
            }
        };
    }

    /** Numbers inputs and scalars in visiting order and writes the structural signature. */
    private static void signature(Node n, List<Object> inputs, List<Scalar> scalars, IdentityHashMap<Object, Integer> slots, StringBuilder b) {
        switch (n) {
            case Input i -> {
                Integer slot = slots.get(i.ref());
                if (slot == null) {
                    slot = inputs.size();
                    slots.put(i.ref(), slot);
                    inputs.add(i.ref());
                }
                b.append('i').append(slot).append(':').append(i.dtype());
            }
            case Scalar s -> {
                b.append('s').append(scalars.size()).append(':').append(s.dtype());
                scalars.add(s);
            }
            case Unary u -> {
                b.append(u.op()).append('<').append(u.loop()).append(">(");
                signature(u.x(), inputs, scalars, slots, b);
                b.append(')');
            }
            case Cast c -> {
                b.append("cast<").append(c.dtype()).append(">(");
                signature(c.x(), inputs, scalars, slots, b);
                b.append(')');
            }
            case Binary x -> {
                b.append(x.op()).append('<').append(x.loop()).append(">(");
                signature(x.a(), inputs, scalars, slots, b);
                b.append(',');
                signature(x.b(), inputs, scalars, slots, b);
                b.append(')');
            }
            case Where w -> {
                b.append("where(");
                signature(w.cond(), inputs, scalars, slots, b);
                b.append(',');
                signature(w.a(), inputs, scalars, slots, b);
                b.append(',');
                signature(w.b(), inputs, scalars, slots, b);
                b.append(')');
            }
        }
    }

    /** A scalar's kernel argument: a Java value of the width its C parameter has. */
    public static Object scalarArgument(Scalar s) {
        DType t = s.dtype();
        boolean f = s.kind() == Promotion.ScalarKind.FLOAT;
        double d = s.doubleValue();
        long l = f ? (long) d : s.bits();
        return switch (t) {
            case BOOL -> f ? d != 0 : l != 0;
            case INT8, UINT8 -> (byte) l;
            case INT16, UINT16 -> (short) l;
            case INT32, UINT32 -> (int) l;
            case INT64, UINT64 -> l;
            case FLOAT16 -> Float.float16ToFloat(Float.floatToFloat16((float) d));
            case BFLOAT16 -> Float.intBitsToFloat(bf16Bits((float) d) << 16);
            case FLOAT32 -> (float) d;
            case FLOAT64 -> d;
            default -> throw new UnsupportedOperationException(t + " scalars");
        };
    }

    /** float → bfloat16 bits, round to nearest even (NaN stays NaN). */
    public static int bf16Bits(float f) {
        int u = Float.floatToRawIntBits(f);
        if ((u & 0x7fffffff) > 0x7f800000) return ((u >>> 16) | 0x40) & 0xffff;
        u += 0x7fff + ((u >>> 16) & 1);
        return (u >>> 16) & 0xffff;
    }

    // ---- code generation ---------------------------------------------------------------------------------

    static String generate(Plan p) {
        StringBuilder b = new StringBuilder(CTypes.PRELUDE);
        int k = p.inputs().size();
        DType[] types = new DType[k];
        for (int i = 0; i < k; i++) types[i] = findInput(p.root(), p.inputs().get(i)).dtype();
        b.append("extern \"C\" __global__ void __launch_bounds__(256) ").append(NAME).append("(i64 n, ")
                .append(CTypes.storage(p.outType())).append("* __restrict__ out");
        for (int i = 0; i < k; i++) b.append(", const ").append(CTypes.storage(types[i])).append("* __restrict__ in").append(i);
        for (int i = 0; i < p.scalars().size(); i++) {
            b.append(", ").append(CTypes.compute(p.scalars().get(i).dtype())).append(" s").append(i);
        }
        b.append(") {\n");
        b.append("  const i64 tid = (i64) blockIdx.x * blockDim.x + threadIdx.x, step = (i64) gridDim.x * blockDim.x;\n");
        int[] scalarCounter = {0};
        if (p.dense()) {
            int v = p.vector();
            if (v > 1) {
                b.append("  const i64 nv = n / ").append(v).append(";\n");
                // unrolled: several 16-byte loads per operand in flight per thread
                b.append("  #pragma unroll 4\n  for (i64 j = tid; j < nv; j += step) {\n");
                for (int i = 0; i < k; i++) {
                    b.append("    const Vec<").append(CTypes.storage(types[i])).append(", ").append(v).append("> x").append(i)
                            .append(" = reinterpret_cast<const Vec<").append(CTypes.storage(types[i])).append(", ").append(v)
                            .append(">*>(in").append(i).append(")[j];\n");
                }
                b.append("    Vec<").append(CTypes.storage(p.outType())).append(", ").append(v).append("> r;\n");
                b.append("    #pragma unroll\n    for (int e = 0; e < ").append(v).append("; e++) r.v[e] = ");
                scalarCounter[0] = 0;
                b.append(CTypes.store(p.outType(), CTypes.convert(p.root().dtype(), p.outType(),
                        emit(p.root(), p, i -> "x" + i + ".v[e]", scalarCounter)))).append(";\n");
                b.append("    reinterpret_cast<Vec<").append(CTypes.storage(p.outType())).append(", ").append(v).append(">*>(out)[j] = r;\n  }\n");
                b.append("  for (i64 i = nv * ").append(v).append(" + tid; i < n; i += step) out[i] = ");
            } else {
                b.append("  for (i64 i = tid; i < n; i += step) out[i] = ");
            }
            scalarCounter[0] = 0;
            b.append(CTypes.store(p.outType(), CTypes.convert(p.root().dtype(), p.outType(),
                    emit(p.root(), p, i -> "in" + i + "[i]", scalarCounter)))).append(";\n}\n");
            return b.toString();
        }
        long[] shape = p.shape();
        long[][] st = p.strides();
        b.append("  for (i64 i = tid; i < n; i += step) {\n    i64 r = i, o = 0");
        for (int i = 0; i < k; i++) b.append(", o").append(i).append(" = 0");
        b.append(";\n");
        for (int d = shape.length - 1; d >= 0; d--) {
            String q = "q" + d;
            if (d == 0) b.append("    const i64 ").append(q).append(" = r;\n");
            else b.append("    const i64 ").append(q).append(" = r % ").append(shape[d]).append("LL; r /= ").append(shape[d]).append("LL;\n");
            if (st[0][d] != 0) b.append("    o += ").append(q).append(" * ").append(st[0][d]).append("LL;\n");
            for (int i = 0; i < k; i++) {
                if (st[i + 1][d] != 0) b.append("    o").append(i).append(" += ").append(q).append(" * (").append(st[i + 1][d]).append("LL);\n");
            }
        }
        scalarCounter[0] = 0;
        b.append("    out[o] = ").append(CTypes.store(p.outType(), CTypes.convert(p.root().dtype(), p.outType(),
                emit(p.root(), p, i -> "in" + i + "[o" + i + "]", scalarCounter)))).append(";\n  }\n}\n");
        return b.toString();
    }

    private static String emit(Node n, Plan p, java.util.function.IntFunction<String> element, int[] scalarCounter) {
        return switch (n) {
            case Input in -> CTypes.load(in.dtype(), element.apply(indexOf(p.inputs(), in.ref())));
            case Scalar s -> "s" + (scalarCounter[0]++);
            case Cast c -> CTypes.convert(c.x().dtype(), c.dtype(), emit(c.x(), p, element, scalarCounter));
            case Where w -> {
                String c = CTypes.convert(w.cond().dtype(), DType.BOOL, emit(w.cond(), p, element, scalarCounter));
                String a = CTypes.convert(w.a().dtype(), w.dtype(), emit(w.a(), p, element, scalarCounter));
                String bb = CTypes.convert(w.b().dtype(), w.dtype(), emit(w.b(), p, element, scalarCounter));
                yield "(" + c + " ? " + a + " : " + bb + ")";
            }
            case Unary u -> unary(u, CTypes.convert(u.x().dtype(), u.loop(), emit(u.x(), p, element, scalarCounter)));
            case Binary x -> {
                String a = CTypes.convert(x.a().dtype(), x.loop(), emit(x.a(), p, element, scalarCounter));
                String bb = CTypes.convert(x.b().dtype(), x.loop(), emit(x.b(), p, element, scalarCounter));
                yield binary(x, a, bb);
            }
        };
    }

    private static int indexOf(List<Object> refs, Object ref) {
        for (int i = 0; i < refs.size(); i++) if (refs.get(i) == ref) return i;
        throw new IllegalStateException("input not planned");
    }

    private static String unary(Unary u, String a) {
        DType t = u.loop();
        boolean dbl = CTypes.isDouble(t);
        String f = dbl ? "" : "f";
        return switch (u.op()) {
            case COPY -> a;
            case NOT -> "(!" + a + ")";
            case NEG -> CTypes.round(t, "-(" + a + ")");
            case ABS -> t.isBool() || t.isUnsigned() ? a
                    : t.isInteger() ? CTypes.round(t, "(" + a + " < 0 ? -(" + a + ") : " + a + ")")
                    : CTypes.round(t, "fabs" + f + "(" + a + ")");
            case EXP -> CTypes.round(t, "exp" + f + "(" + a + ")");
            case LOG -> CTypes.round(t, "log" + f + "(" + a + ")");
            case SQRT -> CTypes.round(t, "sqrt" + f + "(" + a + ")");
            case SIN -> CTypes.round(t, "sin" + f + "(" + a + ")");
            case COS -> CTypes.round(t, "cos" + f + "(" + a + ")");
        };
    }

    private static String binary(Binary x, String a, String b) {
        DType t = x.loop();
        String c = CTypes.compute(t);
        return switch (x.op()) {
            case ADD -> t.isBool() ? "(" + a + " || " + b + ")" : CTypes.round(t, a + " + " + b);
            case SUB -> CTypes.round(t, a + " - " + b);
            case MUL -> t.isBool() ? "(" + a + " && " + b + ")" : CTypes.round(t, a + " * " + b);
            case DIV -> CTypes.round(t, a + " / " + b);
            case POW -> t.isBool() ? "(" + a + " || !" + b + ")"
                    : t.isInteger() ? "ipow<" + c + ">(" + a + ", " + b + ")"
                    : CTypes.isDouble(t) ? "pow(" + a + ", " + b + ")" : CTypes.round(t, "powf(" + a + ", " + b + ")");
            case MAX -> "vmax<" + c + ">(" + a + ", " + b + ")";
            case MIN -> "vmin<" + c + ">(" + a + ", " + b + ")";
            case EQ -> "(" + a + " == " + b + ")";
            case NE -> "(" + a + " != " + b + ")";
            case LT -> "(" + a + " < " + b + ")";
            case LE -> "(" + a + " <= " + b + ")";
            case GT -> "(" + a + " > " + b + ")";
            case GE -> "(" + a + " >= " + b + ")";
            case AND -> "(" + a + " && " + b + ")";
            case OR -> "(" + a + " || " + b + ")";
            case XOR -> "(" + a + " != " + b + ")";
        };
    }
}

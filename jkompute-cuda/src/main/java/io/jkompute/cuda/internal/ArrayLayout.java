package io.jkompute.cuda.internal;

import java.util.Arrays;

/**
 * Shape, strides and offset of an n-dimensional array view, in elements (not bytes), and the numpy rules for
 * indexing, slicing and reshaping it. Pure arithmetic: no device memory is touched here, so all of it is tested
 * without a GPU. Strides may be negative (a {@code [::-1]} view) or zero (a broadcast view); the offset is the
 * element index of {@code a[0, 0, ...]} in the underlying memory, and no element lies before element 0.
 */
public final class ArrayLayout {
    /** Marks an omitted slice bound ({@code a[:3]}, {@code a[2:]}). */
    public static final long NONE = Long.MIN_VALUE;

    private final long[] shape;
    private final long[] strides;
    private final long offset;

    public ArrayLayout(long[] shape, long[] strides, long offset) {
        if (shape.length != strides.length) {
            throw new IllegalArgumentException("shape has " + shape.length + " dimensions but strides have " + strides.length);
        }
        boolean empty = false;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) throw new IllegalArgumentException("negative dimension " + shape[i] + " in shape " + Arrays.toString(shape));
            if (shape[i] == 0) empty = true;
        }
        if (offset < 0) throw new IllegalArgumentException("negative offset " + offset);
        if (!empty) {
            long low = offset;
            for (int i = 0; i < shape.length; i++) if (strides[i] < 0) low += (shape[i] - 1) * strides[i];
            if (low < 0) throw new IllegalArgumentException("layout reaches element " + low + ", before the start of its memory");
        }
        this.shape = shape.clone();
        this.strides = strides.clone();
        this.offset = offset;
    }

    /** A C-order (row-major) layout of {@code shape} starting at element 0. */
    public static ArrayLayout contiguous(long... shape) {
        long[] strides = new long[shape.length];
        long s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] < 0) throw new IllegalArgumentException("negative dimension " + shape[i] + " in shape " + Arrays.toString(shape));
            strides[i] = s;
            s = Math.multiplyExact(s, Math.max(shape[i], 1));
        }
        return new ArrayLayout(shape, strides, 0);
    }

    /** A Fortran-order (column-major) layout of {@code shape} starting at element 0. */
    public static ArrayLayout fortran(long... shape) {
        long[] strides = new long[shape.length];
        long s = 1;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) throw new IllegalArgumentException("negative dimension " + shape[i] + " in shape " + Arrays.toString(shape));
            strides[i] = s;
            s = Math.multiplyExact(s, Math.max(shape[i], 1));
        }
        return new ArrayLayout(shape, strides, 0);
    }

    /** {@code 'C'} or {@code 'F'} contiguous layout of {@code shape}. */
    public static ArrayLayout of(char order, long... shape) {
        return switch (order) {
            case 'C', 'c' -> contiguous(shape);
            case 'F', 'f' -> fortran(shape);
            default -> throw new IllegalArgumentException("order must be 'C' or 'F', was '" + order + "'");
        };
    }

    public long[] shape() {
        return shape.clone();
    }

    public long[] strides() {
        return strides.clone();
    }

    public long offset() {
        return offset;
    }

    public int ndim() {
        return shape.length;
    }

    /** Number of elements. */
    public long size() {
        long n = 1;
        for (long d : shape) n = Math.multiplyExact(n, d);
        return n;
    }

    /** Whether the elements lie densely in C order (then one plain copy moves the whole view). */
    public boolean isContiguous() {
        long expect = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] != 1 && strides[i] != expect) return false;
            expect *= shape[i];
        }
        return true;
    }

    /** Whether the elements lie densely in Fortran order (column-major). */
    public boolean isFortranContiguous() {
        long expect = 1;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] != 1 && strides[i] != expect) return false;
            expect *= shape[i];
        }
        return true;
    }

    /** Whether every stride of a dimension longer than 1 is positive (what 2D copies can express). */
    public boolean hasPositiveStrides() {
        for (int i = 0; i < shape.length; i++) if (shape[i] > 1 && strides[i] <= 0) return false;
        return true;
    }

    /** One past the last element this view can touch, counted from element 0 of the underlying memory. */
    public long extent() {
        if (size() == 0) return offset;
        long last = offset;
        for (int i = 0; i < shape.length; i++) if (strides[i] > 0) last += (shape[i] - 1) * strides[i];
        return last + 1;
    }

    /** The lowest element index this view touches (below {@link #offset()} when a stride is negative). */
    public long lowest() {
        if (size() == 0) return offset;
        long low = offset;
        for (int i = 0; i < shape.length; i++) if (strides[i] < 0) low += (shape[i] - 1) * strides[i];
        return low;
    }

    /** This layout moved by {@code delta} elements (when the memory it refers to starts elsewhere). */
    public ArrayLayout shifted(long delta) {
        return new ArrayLayout(shape, strides, offset + delta);
    }

    /** The axes permuted: dimension {@code i} of the result is dimension {@code axes[i]} of this one (a view). */
    public ArrayLayout permute(int... axes) {
        if (axes.length != shape.length) {
            throw new IllegalArgumentException("axes " + Arrays.toString(axes) + " don't match an array of " + shape.length + " dimensions");
        }
        boolean[] seen = new boolean[shape.length];
        long[] s = new long[shape.length], t = new long[shape.length];
        for (int i = 0; i < axes.length; i++) {
            int a = axes[i] < 0 ? axes[i] + shape.length : axes[i];
            checkDim(a);
            if (seen[a]) throw new IllegalArgumentException("repeated axis in transpose: " + Arrays.toString(axes));
            seen[a] = true;
            s[i] = shape[a];
            t[i] = strides[a];
        }
        return new ArrayLayout(s, t, offset);
    }

    /** The axes reversed ({@code a.T}). */
    public ArrayLayout transpose() {
        int[] axes = new int[shape.length];
        for (int i = 0; i < axes.length; i++) axes[i] = shape.length - 1 - i;
        return permute(axes);
    }

    /** This view broadcast to {@code target} (numpy's rules: align at the right, size-1 dimensions repeat with stride 0). */
    public ArrayLayout broadcastTo(long... target) {
        if (target.length < shape.length) {
            throw new IllegalArgumentException("cannot broadcast shape " + Arrays.toString(shape) + " to " + Arrays.toString(target));
        }
        long[] t = new long[target.length];
        int lead = target.length - shape.length;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] == target[lead + i]) t[lead + i] = shape[i] == 1 ? 0 : strides[i];
            else if (shape[i] == 1) t[lead + i] = 0;
            else throw new IllegalArgumentException("cannot broadcast shape " + Arrays.toString(shape) + " to " + Arrays.toString(target));
        }
        return new ArrayLayout(target, t, offset);
    }

    /** The shape that {@code shapes} broadcast to together, numpy's rules. */
    public static long[] broadcastShapes(long[]... shapes) {
        int nd = 0;
        for (long[] s : shapes) nd = Math.max(nd, s.length);
        long[] out = new long[nd];
        Arrays.fill(out, 1);
        for (long[] s : shapes) {
            int lead = nd - s.length;
            for (int i = 0; i < s.length; i++) {
                long d = s[i], o = out[lead + i];
                if (d == o || d == 1) continue;
                if (o == 1) out[lead + i] = d;
                else {
                    StringBuilder b = new StringBuilder("operands could not be broadcast together with shapes");
                    for (long[] x : shapes) b.append(' ').append(Arrays.toString(x));
                    throw new IllegalArgumentException(b.toString());
                }
            }
        }
        return out;
    }

    /** {@code a[i]} along {@code dim}: drops that dimension. Negative {@code i} counts from the end. */
    public ArrayLayout index(int dim, long i) {
        checkDim(dim);
        long n = shape[dim];
        long j = i < 0 ? i + n : i;
        if (j < 0 || j >= n) {
            throw new IndexOutOfBoundsException("index " + i + " is out of bounds for axis " + dim + " with size " + n);
        }
        long[] s = new long[shape.length - 1], t = new long[shape.length - 1];
        for (int k = 0, o = 0; k < shape.length; k++) {
            if (k == dim) continue;
            s[o] = shape[k];
            t[o++] = strides[k];
        }
        return new ArrayLayout(s, t, offset + j * strides[dim]);
    }

    /**
     * {@code a[start:stop:step]} along {@code dim} with Python's rules: negative bounds count from the end, bounds
     * past the ends are clipped, {@link #NONE} means "from the start" / "to the end".
     */
    public ArrayLayout slice(int dim, long start, long stop, long step) {
        checkDim(dim);
        if (step == 0) throw new IllegalArgumentException("slice step cannot be zero");
        long n = shape[dim];
        long b, e, len;
        if (step > 0) {
            b = start == NONE ? 0 : clip(start < 0 ? start + n : start, n);
            e = stop == NONE ? n : clip(stop < 0 ? stop + n : stop, n);
            len = e > b ? (e - b + step - 1) / step : 0;
        } else { // Python's slice.indices for a negative step: bounds clip to [-1, n-1]
            b = start == NONE ? n - 1 : clipBack(start < 0 ? start + n : start, n);
            e = stop == NONE ? -1 : clipBack(stop < 0 ? stop + n : stop, n);
            len = b > e ? (b - e - 1) / (-step) + 1 : 0;
        }
        long[] s = shape.clone(), t = strides.clone();
        s[dim] = len;
        t[dim] = len == 0 ? strides[dim] : strides[dim] * step; // numpy keeps the stride of an empty slice
        return new ArrayLayout(s, t, len == 0 ? offset : offset + b * strides[dim]);
    }

    private static long clipBack(long v, long n) {
        return Math.max(-1, Math.min(v, n - 1));
    }

    private static long clip(long v, long n) {
        return Math.max(0, Math.min(v, n));
    }

    /** The shape {@code newShape} with its one -1 (if any) inferred from this layout's size; checks the size. */
    public long[] resolveShape(long... newShape) {
        long size = size();
        long known = 1;
        int infer = -1;
        for (int i = 0; i < newShape.length; i++) {
            if (newShape[i] == -1) {
                if (infer >= 0) throw new IllegalArgumentException("can only specify one unknown dimension (-1)");
                infer = i;
            } else if (newShape[i] < 0) {
                throw new IllegalArgumentException("negative dimension " + newShape[i] + " in shape " + Arrays.toString(newShape));
            } else {
                known = Math.multiplyExact(known, newShape[i]);
            }
        }
        long[] s = newShape.clone();
        if (infer >= 0) {
            if (known == 0 || size % known != 0) {
                throw new IllegalArgumentException("cannot reshape array of size " + size + " into shape " + Arrays.toString(newShape));
            }
            s[infer] = size / known;
        } else if (known != size) {
            throw new IllegalArgumentException("cannot reshape array of size " + size + " into shape " + Arrays.toString(newShape));
        }
        return s;
    }

    /** The same elements in a new shape, read in C order, as a view; throws when only a copy can do it. */
    public ArrayLayout reshape(long... newShape) {
        ArrayLayout l = reshapeView('C', newShape);
        if (l == null) throw new IllegalStateException("cannot reshape this non-contiguous view without a copy; call copy() first");
        return l;
    }

    /**
     * numpy's reshape without a copy ({@code _attempt_nocopy_reshape}): the layout of the same elements in
     * {@code newShape} (one dimension may be -1), read and placed in {@code order} ('C' or 'F'), or null when the
     * strides cannot express it and numpy would copy.
     */
    public ArrayLayout reshapeView(char order, long... newShape) {
        boolean f = switch (order) {
            case 'C', 'c' -> false;
            case 'F', 'f' -> true;
            default -> throw new IllegalArgumentException("order must be 'C' or 'F', was '" + order + "'");
        };
        long[] nd = resolveShape(newShape);
        int newnd = nd.length;
        long[] ns = new long[newnd];
        if (size() == 0 || (f ? isFortranContiguous() : isContiguous())) {
            ArrayLayout c = f ? fortran(nd) : contiguous(nd);
            return new ArrayLayout(nd, c.strides, offset);
        }
        int oldnd = 0;
        long[] od = new long[shape.length], os = new long[shape.length];
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] != 1) {
                od[oldnd] = shape[i];
                os[oldnd++] = strides[i];
            }
        }
        int oi = 0, oj = 1, ni = 0, nj = 1;
        while (ni < newnd && oi < oldnd) {
            long np = nd[ni], op = od[oi];
            while (np != op) {
                if (np < op) np *= nd[nj++];
                else op *= od[oj++];
            }
            for (int ok = oi; ok < oj - 1; ok++) {
                if (f) {
                    if (os[ok + 1] != od[ok] * os[ok]) return null;
                } else if (os[ok] != od[ok + 1] * os[ok + 1]) {
                    return null;
                }
            }
            if (f) {
                ns[ni] = os[oi];
                for (int nk = ni + 1; nk < nj; nk++) ns[nk] = ns[nk - 1] * nd[nk - 1];
            } else {
                ns[nj - 1] = os[oj - 1];
                for (int nk = nj - 1; nk > ni; nk--) ns[nk - 1] = ns[nk] * nd[nk];
            }
            ni = nj++;
            oi = oj++;
        }
        long last = ni >= 1 ? ns[ni - 1] : 1;
        if (f && ni >= 1) last *= nd[ni - 1];
        for (int nk = ni; nk < newnd; nk++) ns[nk] = last;
        return new ArrayLayout(nd, ns, offset);
    }

    private void checkDim(int dim) {
        if (dim < 0 || dim >= shape.length) {
            throw new IndexOutOfBoundsException("axis " + dim + " is out of bounds for an array of " + shape.length + " dimensions");
        }
    }

    /**
     * How to copy {@code src} into {@code dst} (same shape) with 2D copies ({@code cuMemcpy2D}): dimensions of size 1
     * are dropped, neighbours that are contiguous in both views are merged, the innermost one or two dimensions
     * become one 2D copy and the rest are looped over.
     */
    public static CopyPlan copyPlan(ArrayLayout src, ArrayLayout dst, int elementSize) {
        if (!Arrays.equals(src.shape, dst.shape)) {
            throw new IllegalArgumentException("shapes differ: " + Arrays.toString(src.shape) + " vs " + Arrays.toString(dst.shape));
        }
        // keep dimensions of size > 1
        int n = 0;
        for (long d : src.shape) if (d > 1) n++;
        long[] sh = new long[n], ss = new long[n], ds = new long[n];
        for (int i = 0, o = 0; i < src.shape.length; i++) {
            if (src.shape[i] > 1) {
                sh[o] = src.shape[i];
                ss[o] = src.strides[i];
                ds[o++] = dst.strides[i];
            }
        }
        // merge dimension i into i+1 where both views are contiguous across them
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (m > 0 && ss[m - 1] == ss[i] * sh[i] && ds[m - 1] == ds[i] * sh[i]) {
                sh[m - 1] *= sh[i];
                ss[m - 1] = ss[i];
                ds[m - 1] = ds[i];
            } else {
                sh[m] = sh[i];
                ss[m] = ss[i];
                ds[m++] = ds[i];
            }
        }
        long srcBase = src.offset * elementSize, dstBase = dst.offset * elementSize;
        if (src.size() == 0) return new CopyPlan(0, 0, 0, 0, new long[0], new long[0], new long[0], srcBase, dstBase);
        if (m == 0) return new CopyPlan(elementSize, 1, elementSize, elementSize, new long[0], new long[0], new long[0], srcBase, dstBase);
        int last = m - 1;
        long width, height, sp, dp;
        int outer;
        if (ss[last] == 1 && ds[last] == 1) {
            width = sh[last] * elementSize;
            if (m >= 2 && ss[last - 1] * elementSize >= width && ds[last - 1] * elementSize >= width) {
                height = sh[last - 1];
                sp = ss[last - 1] * elementSize;
                dp = ds[last - 1] * elementSize;
                outer = m - 2;
            } else {
                height = 1;
                sp = dp = width;
                outer = m - 1;
            }
        } else {
            width = elementSize;
            height = sh[last];
            sp = ss[last] * elementSize;
            dp = ds[last] * elementSize;
            outer = m - 1;
        }
        long[] os = Arrays.copyOf(sh, outer), oss = new long[outer], ods = new long[outer];
        for (int i = 0; i < outer; i++) {
            oss[i] = ss[i] * elementSize;
            ods[i] = ds[i] * elementSize;
        }
        return new CopyPlan(width, height, sp, dp, os, oss, ods, srcBase, dstBase);
    }

    /**
     * A list of equal 2D copies: {@code height} rows of {@code width} bytes, rows {@code srcPitch}/{@code dstPitch}
     * bytes apart, once for each index of the outer dimensions.
     */
    public record CopyPlan(long width, long height, long srcPitch, long dstPitch, long[] outerShape,
                           long[] outerSrcStrides, long[] outerDstStrides, long srcBase, long dstBase) {
        /** Number of 2D copies. */
        public long count() {
            if (width == 0) return 0;
            long c = 1;
            for (long d : outerShape) c *= d;
            return c;
        }

        /** Calls {@code action} with the byte offsets of each 2D copy's first source and destination byte. */
        public void forEach(OffsetPair action) {
            long count = count();
            int k = outerShape.length;
            long[] idx = new long[k];
            for (long c = 0; c < count; c++) {
                long so = srcBase, d = dstBase;
                for (int i = 0; i < k; i++) {
                    so += idx[i] * outerSrcStrides[i];
                    d += idx[i] * outerDstStrides[i];
                }
                action.accept(so, d);
                for (int i = k - 1; i >= 0; i--) {
                    if (++idx[i] < outerShape[i]) break;
                    idx[i] = 0;
                }
            }
        }
    }

    /** Receives one 2D copy's source and destination byte offsets. */
    @FunctionalInterface
    public interface OffsetPair {
        void accept(long srcOffset, long dstOffset);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArrayLayout l && offset == l.offset && Arrays.equals(shape, l.shape) && Arrays.equals(strides, l.strides);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(shape) * 31 + Arrays.hashCode(strides) + Long.hashCode(offset);
    }

    @Override
    public String toString() {
        return "ArrayLayout[shape=" + Arrays.toString(shape) + ", strides=" + Arrays.toString(strides) + ", offset=" + offset + "]";
    }
}

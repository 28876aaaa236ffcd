package io.jkompute.cuda.internal;

import java.util.Arrays;

/**
 * Shape, strides and offset of an n-dimensional array view, in elements (not bytes), and the numpy rules for
 * indexing, slicing and reshaping it. Pure arithmetic: no device memory is touched here, so all of it is tested
 * without a GPU. Strides are positive (views with negative steps are not produced).
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
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) throw new IllegalArgumentException("negative dimension " + shape[i] + " in shape " + Arrays.toString(shape));
            if (strides[i] <= 0 && shape[i] > 1) {
                throw new IllegalArgumentException("stride " + strides[i] + " of dimension " + i + " is not positive: only positive strides are supported");
            }
        }
        if (offset < 0) throw new IllegalArgumentException("negative offset " + offset);
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

    /** One past the last element this view can touch, counted from element 0 of the underlying memory. */
    public long extent() {
        if (size() == 0) return offset;
        long last = offset;
        for (int i = 0; i < shape.length; i++) last += (shape[i] - 1) * strides[i];
        return last + 1;
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
        if (step <= 0) throw new IllegalArgumentException("slice step must be positive, was " + step);
        long n = shape[dim];
        long b = start == NONE ? 0 : clip(start < 0 ? start + n : start, n);
        long e = stop == NONE ? n : clip(stop < 0 ? stop + n : stop, n);
        long len = e > b ? (e - b + step - 1) / step : 0;
        long[] s = shape.clone(), t = strides.clone();
        s[dim] = len;
        t[dim] = strides[dim] * step;
        return new ArrayLayout(s, t, len == 0 ? offset : offset + b * strides[dim]);
    }

    private static long clip(long v, long n) {
        return Math.max(0, Math.min(v, n));
    }

    /** The same elements in a new shape; one dimension may be -1 (inferred). Needs a contiguous view. */
    public ArrayLayout reshape(long... newShape) {
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
        if (!isContiguous()) {
            throw new IllegalStateException("cannot reshape a non-contiguous view in place; call copy() first");
        }
        ArrayLayout c = contiguous(s);
        return new ArrayLayout(c.shape, c.strides, offset);
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

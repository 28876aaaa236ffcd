package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import io.jkompute.cuda.internal.ArrayLayout;
import io.jkompute.cuda.internal.Cublas;
import io.jkompute.cuda.internal.Promotion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * numpy's {@code matmul} through cuBLAS ({@code cublasGemmEx}, {@code cublasGemmStridedBatchedEx}): row-major
 * operands are handed to column-major cuBLAS as their transposes ({@code C^T = B^T A^T}), so a C- or F-contiguous
 * operand is used in place (F order becomes a transpose flag); other views are copied first. float16 and bfloat16
 * accumulate in float32 (what CuPy and PyTorch do), float32 in float32 (no TF32), float64 in float64.
 */
final class Matmul {
    private Matmul() {}

    private static final ConcurrentHashMap<Integer, MemorySegment> HANDLES = new ConcurrentHashMap<>();

    private static MemorySegment handle(int device) {
        String why = Cublas.unavailableReason();
        if (why != null) throw new CudaUnavailableException(why);
        return HANDLES.computeIfAbsent(device, d -> GpuArray.onDevice(d, () -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(ADDRESS);
                Cuda.bindCurrent();
                int rc = Cublas.create(out);
                if (rc != 0) throw new CudaException("cublasCreate failed with cuBLAS status " + rc, CudaError.of(999));
                return out.get(ADDRESS, 0);
            }
        }));
    }

    static GpuArray matmul(GpuArray a, GpuArray b, Stream stream) {
        if (a.ndim() == 0 || b.ndim() == 0) throw new IllegalArgumentException("matmul: input operand does not have enough dimensions (scalars are not allowed; use mul)");
        DType t = Promotion.result(a.dtype(), b.dtype());
        if (t != DType.FLOAT16 && t != DType.BFLOAT16 && t != DType.FLOAT32 && t != DType.FLOAT64) {
            throw new UnsupportedOperationException("matmul through cuBLAS supports float16, bfloat16, float32 and float64, not " + t);
        }
        boolean aVec = a.ndim() == 1, bVec = b.ndim() == 1;
        GpuArray a2 = aVec ? a.reshape(1, a.shape()[0]) : a;
        GpuArray b2 = bVec ? b.reshape(b.shape()[0], 1) : b;
        long[] as = a2.shape(), bs = b2.shape();
        long m = as[as.length - 2], k = as[as.length - 1], k2 = bs[bs.length - 2], n = bs[bs.length - 1];
        if (k != k2) {
            throw new IllegalArgumentException("matmul: Input operand 1 has a mismatch in its core dimension 0 (size " + k2 + " is different from " + k + ")");
        }
        long[] batch = ArrayLayout.broadcastShapes(Arrays.copyOf(as, as.length - 2), Arrays.copyOf(bs, bs.length - 2));
        long nb = 1;
        for (long d : batch) nb *= d;
        long[] outShape = Arrays.copyOf(batch, batch.length + 2);
        outShape[batch.length] = m;
        outShape[batch.length + 1] = n;
        GpuArray out = GpuArray.pooled(a.device(), t, outShape);
        GpuArray ac = null, bc = null;
        try {
            if (m == 0 || n == 0 || nb == 0) return finish(out, aVec, bVec);
            if (k == 0) {
                out.fill(0.0);
                return finish(out, aVec, bVec);
            }
            Operand A = operand(a2, t, batch, m, k);
            Operand B = operand(b2, t, batch, k, n);
            ac = A.owned;
            bc = B.owned;
            int dev = a.device();
            MemorySegment h = handle(dev);
            int dt = switch (t) {
                case FLOAT16 -> Cublas.R_16F;
                case BFLOAT16 -> Cublas.R_16BF;
                case FLOAT32 -> Cublas.R_32F;
                default -> Cublas.R_64F;
            };
            int compute = t == DType.FLOAT64 ? Cublas.COMPUTE_64F : Cublas.COMPUTE_32F;
            checkInt(m, n, k);
            synchronized (h) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment alpha = arena.allocate(8, 8), beta = arena.allocate(8, 8);
                    if (t == DType.FLOAT64) {
                        alpha.set(JAVA_DOUBLE, 0, 1.0);
                        beta.set(JAVA_DOUBLE, 0, 0.0);
                    } else {
                        alpha.set(JAVA_FLOAT, 0, 1f);
                        beta.set(JAVA_FLOAT, 0, 0f);
                    }
                    MemorySegment s = stream == null ? MemorySegment.NULL : stream.bind();
                    Cuda.bind(Cuda.context(dev));
                    check(Cublas.setStream(h, s), "cublasSetStream");
                    // column-major view: C^T (n x m) = op(B^T) (n x k) * op(A^T) (k x m)
                    if (nb == 1) {
                        check(Cublas.gemmEx(h, B.op, A.op, (int) n, (int) m, (int) k, alpha, B.array.ptr(), dt, B.ld,
                                A.array.ptr(), dt, A.ld, beta, out.ptr(), dt, (int) n, compute, Cublas.GEMM_DEFAULT), "cublasGemmEx");
                    } else {
                        if (nb > Integer.MAX_VALUE) throw new IllegalArgumentException("too many matrices in the batch: " + nb);
                        check(Cublas.gemmStridedBatchedEx(h, B.op, A.op, (int) n, (int) m, (int) k, alpha, B.array.ptr(), dt, B.ld,
                                B.batchStride, A.array.ptr(), dt, A.ld, A.batchStride, beta, out.ptr(), dt, (int) n, m * n, (int) nb,
                                compute, Cublas.GEMM_DEFAULT), "cublasGemmStridedBatchedEx");
                    }
                }
            }
            return finish(out, aVec, bVec);
        } catch (RuntimeException e) {
            out.close();
            throw e;
        } finally {
            if (ac != null) ac.close();
            if (bc != null) bc.close();
        }
    }

    private static GpuArray finish(GpuArray out, boolean aVec, boolean bVec) {
        if (!aVec && !bVec) return out;
        long[] s = out.shape();
        long[] r;
        if (aVec && bVec) r = Arrays.copyOf(s, s.length - 2);
        else if (aVec) {
            r = Arrays.copyOf(s, s.length - 1);
            r[s.length - 2] = s[s.length - 1];
        } else r = Arrays.copyOf(s, s.length - 1);
        GpuArray v = out.reshape(r);
        return out.handOver(v);
    }

    private static void checkInt(long... dims) {
        for (long d : dims) if (d > Integer.MAX_VALUE) throw new IllegalArgumentException("matrix dimension " + d + " exceeds cuBLAS's int range");
    }

    private static void check(int status, String what) {
        if (status != 0) throw new CudaException(what + " failed with cuBLAS status " + status, CudaError.of(999));
    }

    /** An operand as cuBLAS sees it: the array, its op flag, leading dimension and batch stride (elements). */
    private record Operand(GpuArray array, int op, int ld, long batchStride, GpuArray owned) {}

    private static Operand operand(GpuArray x, DType t, long[] batch, long rows, long cols) {
        GpuArray owned = null;
        if (x.dtype() != t) {
            owned = x.astype(t).eval();
            x = owned;
        }
        long[] sh = x.shape();
        long[] st = x.layout().strides();
        int nd = sh.length;
        long rs = st[nd - 2], cs = st[nd - 1];
        boolean c = (cs == 1 || cols == 1) && (rs == cols || rows == 1);
        boolean f = !c && (rs == 1 || rows == 1) && (cs == rows || cols == 1);
        long bstride = 0;
        boolean batchOk = true;
        int bnd = nd - 2;
        long nbx = 1;
        for (int i = 0; i < bnd; i++) nbx *= sh[i];
        if (nbx > 1) {
            // one uniform stride over the flattened batch dims, and the batch broadcast only as a whole (stride 0) or not at all
            long expect = -1;
            long prod = 1;
            for (int i = bnd - 1; i >= 0; i--) {
                if (sh[i] == 1) continue;
                if (expect == -1) expect = st[i];
                else if (st[i] != expect * prod) batchOk = false;
                prod *= sh[i];
                if (expect == -1) batchOk = false;
            }
            bstride = expect;
            long nb = 1;
            for (long d : batch) nb *= d;
            if (nbx != nb) batchOk = false;
        }
        if (!(c || f) || !batchOk) {
            GpuArray copy = broadcastCopy(x, batch, rows, cols);
            if (owned != null) owned.close();
            owned = copy;
            return new Operand(copy, Cublas.OP_N, (int) cols, rows * cols, owned);
        }
        long nbTotal = 1;
        for (long d : batch) nbTotal *= d;
        if (nbx == 1 && nbTotal > 1) bstride = 0; // one matrix used for every batch entry
        if (c) return new Operand(x, Cublas.OP_N, (int) Math.max(1, cols), bstride, owned);
        return new Operand(x, Cublas.OP_T, (int) Math.max(1, rows), bstride, owned);
    }

    private static GpuArray broadcastCopy(GpuArray x, long[] batch, long rows, long cols) {
        long[] target = Arrays.copyOf(batch, batch.length + 2);
        target[batch.length] = rows;
        target[batch.length + 1] = cols;
        GpuArray out = GpuArray.pooled(x.device(), x.dtype(), target);
        x.expr().evalInto(out);
        return out;
    }
}

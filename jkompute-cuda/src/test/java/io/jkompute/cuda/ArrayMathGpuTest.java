package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Array math on the GPU against values computed here with numpy's rules: element-wise (fused), reductions,
 * matmul, views with negative strides and Fortran order, constructors, PyGPU's error values.
 */
@Tag("gpu")
class ArrayMathGpuTest {
    @BeforeEach
    void needs() {
        GpuTestSupport.requireNvrtc();
    }

    static float[] seq(int n, float scale) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) a[i] = (i % 17 - 8) * scale;
        return a;
    }

    @Test
    void fusedChainIsOneKernelAndMatchesJava() {
        int n = 100_003;
        float[] x = seq(n, 0.25f), y = seq(n, -0.5f);
        try (GpuArray a = GpuArray.toGpu(x); GpuArray b = GpuArray.toGpu(y)) {
            Expr e = a.mul(2).add(b).exp();
            assertEquals(DType.FLOAT32, e.dtype());
            int before = KernelCache.size();
            try (GpuArray r = e.eval(); GpuArray r2 = a.mul(3).add(b).exp().eval()) {
                assertTrue(KernelCache.size() - before <= 1, "one kernel for both (the scalar is an argument)");
                float[] got = r.toFloatArray(), got2 = r2.toFloatArray();
                for (int i = 0; i < n; i++) {
                    float want = (float) Math.exp(x[i] * 2f + y[i]);
                    assertEquals(want, got[i], Math.abs(want) * 2e-6f + 1e-30f, "element " + i);
                    float want2 = (float) Math.exp(x[i] * 3f + y[i]);
                    assertEquals(want2, got2[i], Math.abs(want2) * 2e-6f + 1e-30f);
                }
            }
        }
    }

    @Test
    void integerArithmeticWrapsAndDivisionIsFloat64() {
        byte[] v = {100, -100, 7, -128};
        try (GpuArray a = GpuArray.toGpu(v, DType.INT8)) {
            try (GpuArray s = a.add(100).eval()) { // int8 + 100 stays int8 (NEP 50) and wraps
                assertEquals(DType.INT8, s.dtype());
                assertArrayEquals(new byte[] {-56, 0, 107, -28}, (byte[]) s.get());
            }
            try (GpuArray d = a.div(a.add(1)).eval()) {
                assertEquals(DType.FLOAT64, d.dtype());
                assertArrayEquals(new double[] {100.0 / 101, -100.0 / -99, 7.0 / 8, -128.0 / -127}, d.toDoubleArray(), 1e-15);
            }
            try (GpuArray m = a.mul(2.5).eval()) {
                assertEquals(DType.FLOAT64, m.dtype());
                assertArrayEquals(new double[] {250, -250, 17.5, -320}, m.toDoubleArray(), 0);
            }
            assertThrows(IllegalArgumentException.class, () -> a.add(300));
        }
    }

    @Test
    void broadcastingComparisonsWhereClipAstype() {
        float[] m = new float[12];
        for (int i = 0; i < 12; i++) m[i] = i;
        try (GpuArray a = GpuArray.toGpu(m, 3, 4); GpuArray row = GpuArray.toGpu(new float[] {10, 20, 30, 40}, 4)) {
            try (GpuArray s = a.add(row).eval()) {
                assertArrayEquals(new long[] {3, 4}, s.shape());
                assertArrayEquals(new float[] {10, 21, 32, 43, 14, 25, 36, 47, 18, 29, 40, 51}, s.toFloatArray());
            }
            try (GpuArray gt = a.gt(5).eval()) {
                assertEquals(DType.BOOL, gt.dtype());
                assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}, (byte[]) gt.get());
            }
            try (GpuArray w = Expr.where(a.gt(5), a, a.neg()).eval()) {
                assertArrayEquals(new float[] {-0f, -1, -2, -3, -4, -5, 6, 7, 8, 9, 10, 11}, w.toFloatArray()); // -(0.0) is -0.0, as numpy
            }
            try (GpuArray c = a.clip(2.0, 9.5).eval()) {
                assertArrayEquals(new float[] {2, 2, 2, 3, 4, 5, 6, 7, 8, 9, 9.5f, 9.5f}, c.toFloatArray());
            }
            try (GpuArray i = a.mul(1.6).astype(DType.INT32).eval()) { // C truncation, as numpy's astype
                assertArrayEquals(new int[] {0, 1, 3, 4, 6, 8, 9, 11, 12, 14, 16, 17}, i.toIntArray());
            }
            try (GpuArray l = a.gt(3).and(a.lt(8)).not().eval()) {
                assertArrayEquals(new byte[] {1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1}, (byte[]) l.get());
            }
            try (GpuArray h = a.astype(DType.FLOAT16).mul(0.1).eval()) {
                assertEquals(DType.FLOAT16, h.dtype());
                short[] bits = h.toShortArray();
                for (int i = 0; i < 12; i++) {
                    float want = Float.float16ToFloat(Float.floatToFloat16(Float.float16ToFloat(Float.floatToFloat16(i)) * Float.float16ToFloat(Float.floatToFloat16(0.1f))));
                    assertEquals(want, Float.float16ToFloat(bits[i]), 0, "float16 element " + i);
                }
            }
        }
    }

    @Test
    void inPlaceUpdatesAndOverlap() {
        try (GpuArray a = GpuArray.toGpu(new float[] {1, 2, 3, 4, 5})) {
            a.imul(2.0);
            assertArrayEquals(new float[] {2, 4, 6, 8, 10}, a.toFloatArray());
            // a[1:] = a[:-1] + 1: reads overlap the writes at other positions, numpy's result needs a temporary
            a.slice(Slice.from(1)).assign(a.slice(Slice.to(-1)).add(1));
            assertArrayEquals(new float[] {2, 3, 5, 7, 9}, a.toFloatArray());
            try (GpuArray i = GpuArray.toGpu(new int[] {1, 2})) {
                assertThrows(IllegalArgumentException.class, () -> i.assign(i.mul(1.5))); // same_kind: float into int
            }
        }
    }

    @Test
    void negativeStepsFortranOrderAndReshapeCopies() {
        float[] m = new float[6];
        for (int i = 0; i < 6; i++) m[i] = i;
        try (GpuArray a = GpuArray.toGpu(m, 2, 3)) {
            GpuArray rev = a.slice(Slice.every(-1), Slice.every(-1)); // a[::-1, ::-1]
            assertArrayEquals(new long[] {-12, -4}, rev.strides());
            assertArrayEquals(new float[] {5, 4, 3, 2, 1, 0}, rev.toFloatArray());
            try (GpuArray f = a.copy('F')) {
                assertTrue(f.isFortranContiguous());
                assertArrayEquals(new long[] {4, 8}, f.strides());
                assertArrayEquals(m, f.toFloatArray()); // get() is in C order whatever the layout
                GpuArray fv = f.reshape('F', 3, 2);  // F-order reshape of an F array: a view
                assertTrue(fv.isView());
                assertArrayEquals(new float[] {0, 4, 3, 2, 1, 5}, fv.toFloatArray());
            }
            GpuArray flat = rev.reshape(6); // numpy: still a view, stride -1 element
            assertTrue(flat.isView());
            assertArrayEquals(new long[] {-4}, flat.strides());
            try (GpuArray r = rev.slice(Slice.all(), Slice.every(2)).reshape(4)) { // numpy: a copy
                assertFalse(r.isView());
                assertArrayEquals(new float[] {5, 3, 2, 0}, r.toFloatArray());
            }
            try (GpuArray r = flat.copy()) {
                assertArrayEquals(new float[] {5, 4, 3, 2, 1, 0}, r.toFloatArray());
            }
            try (GpuArray t = a.transpose().copy()) {
                assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, t.toFloatArray());
            }
            // DLPack keeps negative strides zero-copy
            MemorySegment dl = rev.toDlpack();
            try (GpuArray back = GpuArray.fromDlpack(dl)) {
                assertEquals(rev.ptr(), back.ptr());
                assertArrayEquals(new float[] {5, 4, 3, 2, 1, 0}, back.toFloatArray());
            }
            var cai = rev.cudaArrayInterface();
            assertEquals("<f4", cai.get("typestr"));
            assertEquals(java.util.List.of(-12L, -4L), cai.get("strides"));
            assertEquals(java.util.List.of(rev.ptr(), false), cai.get("data"));
        }
    }

    @Test
    void rowReductionsAtEveryLengthAndKernelPath() {
        // shapes whose rows take every path: lengths around the warp width, the four-load unroll (4 x 32 x 4
        // floats), the 16-byte tail, the warp-per-row limit and beyond (a block per row); 37 rows take a block
        // each, 2053 short rows a warp each (not a whole number of warps per block)
        for (int[] rc : new int[][] {{37, 1}, {37, 33}, {37, 513}, {37, 4099}, {37, 20011}, {2053, 1}, {2053, 3}, {2053, 31}, {2053, 32},
                {2053, 33}, {2053, 127}, {2053, 128}, {2053, 129}, {2053, 511}, {2053, 513}, {2053, 4096}, {2053, 4099}, {2053, 8192}, {2053, 8193}}) {
            int r = rc[0], c = rc[1];
            float[] m = new float[r * c];
            int[] im = new int[r * c];
            Random rnd = new Random(r * 31L + c);
            for (int i = 0; i < m.length; i++) {
                im[i] = rnd.nextInt(101) - 50; // small range: many ties, so argmax's first occurrence is tested
                m[i] = im[i];
            }
            try (GpuArray a = GpuArray.toGpu(m, r, c); GpuArray ia = GpuArray.toGpu(im, r, c);
                 GpuArray s = a.sum(-1); GpuArray is = ia.sum(-1); GpuArray mn = a.min(-1); GpuArray am = a.argmax(-1); GpuArray iam = ia.argmin(-1)) {
                float[] gs = s.toFloatArray(), gmn = mn.toFloatArray();
                long[] gis = is.toLongArray(), gam = am.toLongArray(), giam = iam.toLongArray();
                for (int i = 0; i < r; i++) {
                    long want = 0;
                    int lo = Integer.MAX_VALUE, hi = Integer.MIN_VALUE;
                    long hiAt = -1, loAt = -1;
                    for (int j = 0; j < c; j++) {
                        int v = im[i * c + j];
                        want += v;
                        if (v > hi) { hi = v; hiAt = j; }
                        if (v < lo) { lo = v; loAt = j; }
                    }
                    String at = r + " x " + c + ", row " + i;
                    assertEquals(want, gs[i], 0, "float32 sum, " + at); // integers below 2^24: exact in any order
                    assertEquals(want, gis[i], "int32 sum (int64), " + at);
                    assertEquals(lo, gmn[i], 0, "min, " + at);
                    assertEquals(hiAt, gam[i], "argmax, " + at);
                    assertEquals(loAt, giam[i], "argmin, " + at);
                }
            }
        }
        // one long row split over a grid of blocks, and the same data as int32 (exact) and float64
        int n = 3_000_017;
        int[] im = new int[n];
        Random rnd = new Random(5);
        long want = 0;
        for (int i = 0; i < n; i++) {
            im[i] = rnd.nextInt(2001) - 1000;
            want += im[i];
        }
        try (GpuArray ia = GpuArray.toGpu(im, n); GpuArray is = ia.sum(); GpuArray da = ia.astype(DType.FLOAT64).eval(); GpuArray ds = da.sum();
             GpuArray mx = ia.max()) {
            assertEquals(want, is.item(), 0);
            assertEquals(want, ds.item(), 0);
            assertEquals(1000, mx.item(), 0);
        }
    }

    @Test
    void reductionsAlongAnyAxes() {
        int r = 300, c = 257;
        float[] m = new float[r * c];
        Random rnd = new Random(3);
        for (int i = 0; i < m.length; i++) m[i] = rnd.nextInt(200) - 100;
        try (GpuArray a = GpuArray.toGpu(m, r, c)) {
            double total = 0;
            for (float v : m) total += v;
            try (GpuArray s = a.sum()) {
                assertEquals(0, s.ndim());
                assertEquals(total, s.item(), 0);
            }
            try (GpuArray s0 = a.sum(0); GpuArray s1 = a.sum(1); GpuArray mx = a.max(1); GpuArray am = a.argmax(0); GpuArray mean = a.mean(-1)) {
                float[] g0 = s0.toFloatArray(), g1 = s1.toFloatArray(), gm = mx.toFloatArray(), gmean = mean.toFloatArray();
                long[] ga = am.toLongArray();
                for (int j = 0; j < c; j++) {
                    float want = 0, best = Float.NEGATIVE_INFINITY;
                    long bi = -1;
                    for (int i = 0; i < r; i++) {
                        want += m[i * c + j];
                        if (m[i * c + j] > best) { best = m[i * c + j]; bi = i; }
                    }
                    assertEquals(want, g0[j], 0, "column " + j);
                    assertEquals(bi, ga[j], "argmax of column " + j + " (first occurrence)");
                }
                for (int i = 0; i < r; i++) {
                    float want = 0, best = Float.NEGATIVE_INFINITY;
                    for (int j = 0; j < c; j++) {
                        want += m[i * c + j];
                        best = Math.max(best, m[i * c + j]);
                    }
                    assertEquals(want, g1[i], 0, "row " + i);
                    assertEquals(best, gm[i], 0);
                    assertEquals(want / c, gmean[i], 1e-4);
                }
            }
        }
        // numpy's accumulator types: uint8 sums as uint64, bool as int64; any/all; NaN propagates through max
        byte[] u = new byte[1000];
        java.util.Arrays.fill(u, (byte) 250);
        try (GpuArray a = GpuArray.toGpu(u, DType.UINT8); GpuArray s = a.sum(); GpuArray g = a.gt(249).sum(); GpuArray any = a.lt(0).any();
             GpuArray all = a.gt(0).all()) {
            assertEquals(DType.UINT64, s.dtype());
            assertEquals(250_000, s.item(), 0);
            assertEquals(DType.INT64, g.dtype());
            assertEquals(1000, g.item(), 0);
            assertEquals(0, any.item(), 0);
            assertEquals(1, all.item(), 0);
        }
        try (GpuArray a = GpuArray.toGpu(new float[] {1, Float.NaN, 3}); GpuArray mx = a.max(); GpuArray am = a.argmax()) {
            assertTrue(Double.isNaN(mx.item()));
            assertEquals(1, am.item(), 0);
        }
        try (GpuArray big = GpuArray.arange(0, 1 << 24, 1, DType.FLOAT64); GpuArray s = big.sum(); GpuArray am = big.argmin()) {
            assertEquals((double) (1L << 24) * ((1L << 24) - 1) / 2, s.item(), 0);
            assertEquals(0, am.item(), 0);
        }
        try (GpuArray e = GpuArray.zeros(DType.FLOAT32, 0)) {
            assertThrows(IllegalArgumentException.class, e::max);
            try (GpuArray s = e.sum()) {
                assertEquals(0, s.item(), 0);
            }
        }
    }

    @Test
    void matmulThroughCublasAllTypesAndBatches() {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.jkompute.cuda.internal.Cublas.unavailableReason() == null,
                () -> "needs cuBLAS: " + io.jkompute.cuda.internal.Cublas.unavailableReason());
        int m = 33, k = 17, n = 9, batch = 3;
        float[] x = seq(batch * m * k, 0.5f), y = seq(k * n, 0.25f);
        float[] want = new float[batch * m * n];
        for (int b = 0; b < batch; b++) {
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    float s = 0;
                    for (int p = 0; p < k; p++) s += x[b * m * k + i * k + p] * y[p * n + j];
                    want[b * m * n + i * n + j] = s;
                }
            }
        }
        try (GpuArray a = GpuArray.toGpu(x, batch, m, k); GpuArray b = GpuArray.toGpu(y, k, n)) {
            try (GpuArray c = a.matmul(b)) { // batched, the right operand broadcast
                assertArrayEquals(new long[] {batch, m, n}, c.shape());
                assertArrayEquals(want, c.toFloatArray(), 0);
            }
            for (DType t : new DType[] {DType.FLOAT64, DType.FLOAT16, DType.BFLOAT16}) {
                try (GpuArray at = a.astype(t).eval(); GpuArray bt = b.astype(t).eval(); GpuArray c = at.matmul(bt); GpuArray c32 = c.astype(DType.FLOAT32).eval()) {
                    assertEquals(t, c.dtype());
                    assertArrayEquals(want, c32.toFloatArray(), t == DType.FLOAT64 ? 0 : 0.02f * 64, t.toString()); // small integers: exact in float16 too
                }
            }
            // a transposed (F-order) operand goes to cuBLAS as a transpose flag, not a copy
            try (GpuArray bT = b.transpose().copy(); GpuArray c = a.at(0).matmul(bT.transpose())) {
                float[] got = c.toFloatArray();
                for (int i = 0; i < m * n; i++) assertEquals(want[i], got[i], 0);
            }
            try (GpuArray v = GpuArray.toGpu(new float[] {1, 2, 3}); GpuArray d = v.dot(v)) {
                assertEquals(0, d.ndim());
                assertEquals(14, d.item(), 0);
            }
        }
    }

    @Test
    void constructorsAndConcatenate() {
        try (GpuArray r = GpuArray.arange(5); GpuArray l = GpuArray.linspace(0, 1, 5); GpuArray f = GpuArray.arange(1, 2, 0.25, DType.FLOAT32)) {
            assertArrayEquals(new long[] {0, 1, 2, 3, 4}, r.toLongArray());
            assertArrayEquals(new double[] {0, 0.25, 0.5, 0.75, 1}, l.toDoubleArray(), 0);
            assertArrayEquals(new float[] {1, 1.25f, 1.5f, 1.75f}, f.toFloatArray());
            try (GpuArray z = l.zerosLike()) {
                assertArrayEquals(new double[5], z.toDoubleArray(), 0);
            }
        }
        try (GpuArray a = GpuArray.toGpu(new int[] {1, 2, 3, 4}, 2, 2); GpuArray b = GpuArray.toGpu(new float[] {9, 8}, 2, 1);
             GpuArray c = GpuArray.concatenate(1, a, b)) {
            assertEquals(DType.FLOAT64, c.dtype()); // int32 with float32: float64
            assertArrayEquals(new double[] {1, 2, 9, 3, 4, 8}, c.toDoubleArray(), 0);
        }
    }

    @Test
    void readmeExample() {
        try (GpuArray x = GpuArray.linspace(-1, 1, 1 << 20, DType.FLOAT32);
             GpuArray y = GpuArray.arange(0, 1 << 20, 1, DType.FLOAT32);
             GpuArray z = x.mul(2).add(y).sin().abs().sqrt().eval();   // one fused kernel, one pass over memory
             GpuArray total = z.sum();                                   // 0-d float32 array, on the device
             GpuArray m = z.reshape(1024, 1024).max(0)) {                // along an axis: shape [1024]
            double s = total.item();                                    // the one host round trip
            float[] zs = z.toFloatArray();
            double want = 0;
            for (float v : zs) want += v;
            assertEquals(want, s, 1e-4 * want);
            assertArrayEquals(new long[] {1024}, m.shape());
            float[] mx = m.toFloatArray();
            for (int j = 0; j < 1024; j += 97) {
                float best = Float.NEGATIVE_INFINITY;
                for (int i = 0; i < 1024; i++) best = Math.max(best, zs[i * 1024 + j]);
                assertEquals(best, mx[j], 0);
            }
        }
    }

    @Test
    void pygpuContractErrorsAreValues() {
        assertEquals(101, Cuda.trySetDevice(Cuda.deviceCount()).code());
        assertEquals(CudaError.SUCCESS, Cuda.trySetDevice(0));
        assertEquals(Integer.valueOf(0), Cuda.tryGetDevice().value());
        try (Event a = Event.create(); Event b = Event.create()) {
            CudaResult<Float> r = b.tryElapsedMillisSince(a); // neither recorded: an error value, not an exception
            assertFalse(r.isSuccess());
            assertEquals(null, r.value());
        }
        try (GpuArray u = GpuArray.empty(DType.UINT64, 3)) {
            u.fill(0x1p63);
            assertArrayEquals(new long[] {Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE}, u.toLongArray());
        }
    }
}

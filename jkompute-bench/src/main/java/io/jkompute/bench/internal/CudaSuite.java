package io.jkompute.bench.internal;

import static io.jkompute.bench.BenchOptions.formatBytes;

import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.DType;
import io.jkompute.cuda.Event;
import io.jkompute.cuda.Expr;
import io.jkompute.cuda.GpuArray;
import io.jkompute.cuda.Nvrtc;
import io.jkompute.cuda.Slice;
import io.jkompute.cuda.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Suite 8, cuda: jkompute-cuda's {@code GpuArray} array math beside CuPy and PyTorch doing the same work in the same
 * run (peers.py): element-wise (a saxpy-like {@code 2x + y} and the 5-op chain {@code sqrt(abs(sin(2x + y))) * 0.5},
 * one fused kernel here) from 1 MiB to 1 GiB, GB/s counting two arrays read and one written; sums (all elements,
 * along the last axis and along the first axis) in GB/s read; GEMM 4096³ and 8192³ in float32 (no TF32) and bfloat16
 * in TFLOP/s; and one small op + synchronize, wall-clock µs. GPU times are CUDA events around 10 back-to-back ops.
 * Every result is checked against the CPU first.
 */
public final class CudaSuite implements Suite {
    static final String JK = "jkompute";

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public String title() {
        return "CUDA array math (GpuArray vs CuPy, PyTorch)";
    }

    @Override
    public int steps(Context ctx) {
        return 2;
    }

    static long[] sizes(Context ctx) {
        return ctx.quick() ? new long[] {1L << 20, 4L << 20} : new long[] {1L << 20, 16L << 20, 256L << 20, 1L << 30};
    }

    static long[] gemms(Context ctx) {
        return ctx.quick() ? new long[] {512} : new long[] {4096, 8192};
    }

    @Override
    public void run(Context ctx, Recorder out) {
        String why = Cuda.unavailableReason();
        if (why == null && !Nvrtc.isAvailable()) why = "NVRTC is not installed (array math compiles its kernels at run time)";
        if (why != null) {
            out.skip(why);
            return;
        }
        int reps = ctx.quick() ? 3 : 10, rounds = ctx.quick() ? 2 : 5;
        long[] sizes = sizes(ctx);
        for (long bytes : sizes) elementwise(out, bytes, reps, rounds);
        for (long bytes : sizes) reductions(out, bytes, reps, rounds);
        for (long n : gemms(ctx)) {
            gemm(out, n, DType.FLOAT32, rounds);
            gemm(out, n, DType.BFLOAT16, rounds);
        }
        latency(out, ctx.quick() ? 200 : 5000);
        Cuda.releaseCachedMemory(); // the peers run in another process and need the device memory
        ctx.step("cuda jkompute");
        List<String> args = new ArrayList<>(List.of("cuda", "--seed", Long.toString(ctx.seed()), "--sizes"));
        args.add(String.join(",", java.util.Arrays.stream(sizes).mapToObj(Long::toString).toList()));
        args.add("--gemm");
        args.add(String.join(",", java.util.Arrays.stream(gemms(ctx)).mapToObj(Long::toString).toList()));
        if (ctx.quick()) args.add("--quick");
        Peers.run(out, args, 900, System.getenv().getOrDefault("JKOMPUTE_PYTHON", "python3"));
        ctx.step("cuda peers");
        long top = sizes[sizes.length - 1];
        String at = " at " + formatBytes(top);
        out.ratio("2x+y jkompute / CuPy fused" + at, out.find("2x+y", JK, top), out.find("2x+y", "CuPy fuse", top), 1.0, true, "GB/s");
        out.ratio("2x+y jkompute / CuPy a*x+y" + at, out.find("2x+y", JK, top), out.find("2x+y", "CuPy", top), Double.NaN, true, "GB/s; CuPy runs two kernels");
        out.ratio("5-op jkompute / CuPy unfused" + at, out.find("5-op", JK, top), out.find("5-op", "CuPy", top), 2.0, true, "GB/s; CuPy runs five kernels");
        out.ratio("5-op jkompute / CuPy fused" + at, out.find("5-op", JK, top), out.find("5-op", "CuPy fuse", top), 1.0, true, "GB/s");
        out.ratio("5-op jkompute / PyTorch" + at, out.find("5-op", JK, top), out.find("5-op", "PyTorch", top), Double.NaN, true, "GB/s");
        for (String r : new String[] {"sum all", "sum axis -1", "sum axis 0"}) {
            out.ratio(r + " jkompute / CuPy" + at, out.find(r, JK, top), out.find(r, "CuPy", top), 1.0, true, "GB/s read");
        }
        long g = gemms(ctx)[gemms(ctx).length - 1];
        out.ratio("GEMM float32 jkompute / CuPy at " + g + "³", out.find("GEMM float32", JK, g), out.find("GEMM float32", "CuPy", g), 0.95, true, "TFLOP/s");
        out.ratio("GEMM bfloat16 jkompute / PyTorch at " + g + "³", out.find("GEMM bfloat16", JK, g), out.find("GEMM bfloat16", "PyTorch", g), 0.95, true, "TFLOP/s");
        out.ratio("GEMM bfloat16 jkompute / CuPy at " + g + "³", out.find("GEMM bfloat16", JK, g), out.find("GEMM bfloat16", "CuPy", g), 0.95, true, "TFLOP/s");
        out.ratio("op + sync jkompute / CuPy", out.find("op + sync", JK, 4096), out.find("op + sync", "CuPy", 4096), 1.0, false, "µs, wall");
    }

    /** GPU nanoseconds per call of {@code body}: events around {@code reps} calls, {@code rounds} times. */
    public static double[] gpuTime(Runnable body, int reps, int rounds) {
        // warm up until the JIT has compiled the host path (small arrays measure the host's cost per op)
        long until = System.nanoTime() + 300_000_000L;
        for (int i = 0; i < 20_000 && (i < 3 || System.nanoTime() < until); i++) body.run();
        Cuda.synchronize();
        double[] ns = new double[rounds];
        Stream s = Stream.defaultStream();
        try (Event a = Event.create(); Event b = Event.create()) {
            for (int r = 0; r < rounds; r++) {
                a.record(s);
                for (int i = 0; i < reps; i++) body.run();
                b.record(s);
                b.synchronize();
                ns[r] = b.elapsedMillisSince(a) * 1e6 / reps;
            }
        }
        return ns;
    }

    static double[] rate(double[] ns, double bytes) {
        double[] r = new double[ns.length];
        for (int i = 0; i < ns.length; i++) r[i] = bytes / ns[i]; // bytes per ns = GB/s
        return r;
    }

    static float[] input(long n, int salt, int limit) {
        float[] a = new float[(int) Math.min(n, limit)];
        for (int i = 0; i < a.length; i++) a[i] = value(i, salt);
        return a;
    }

    public static float value(long i, int salt) {
        return ((i * (31 + salt) + salt) % 1000) / 500f - 1f;
    }

    /** Fills a device array with {@code value(i, salt)} (float64 math, then float32, like the host reference). */
    public static GpuArray filled(long n, int salt) {
        try (GpuArray i = GpuArray.arange(0, n, 1, DType.FLOAT64)) {
            // ((i * (31 + salt) + salt) % 1000) / 500 - 1, without a modulo op: i*k - 1000*floor(i*k/1000)
            Expr k = i.mul((double) (31 + salt)).add((double) salt);
            try (GpuArray t = k.eval(); GpuArray q = t.div(1000.0).eval(); GpuArray f = floor(q)) {
                return t.sub(f.mul(1000.0)).div(500.0).sub(1.0).astype(DType.FLOAT32).eval();
            }
        }
    }

    private static GpuArray floor(GpuArray q) {
        // floor of non-negative values: truncation through int64
        return q.astype(DType.INT64).astype(DType.FLOAT64).eval();
    }

    private static String checkPrefix(GpuArray got, int limit, java.util.function.LongToDoubleFunction want, double tol) {
        int n = (int) Math.min(got.size(), limit);
        float[] g;
        try (GpuArray head = got.slice(Slice.to(n)).copy()) {
            g = head.toFloatArray();
        }
        for (int i = 0; i < n; i++) {
            double w = want.applyAsDouble(i);
            if (Math.abs(g[i] - w) > tol * Math.max(1, Math.abs(w))) return "element " + i + " is " + g[i] + ", expected " + w;
        }
        return null;
    }

    private static void elementwise(Recorder out, long bytes, int reps, int rounds) {
        long n = bytes / 4;
        try (GpuArray x = filled(n, 0); GpuArray y = filled(n, 7)) {
            Supplier<Expr> saxpy = () -> x.mul(2.0).add(y);
            Supplier<Expr> five = () -> x.mul(2.0).add(y).sin().abs().sqrt().mul(0.5);
            try (GpuArray r = saxpy.get().eval()) {
                if (out.check("2x+y " + formatBytes(bytes) + " " + JK, checkPrefix(r, 1 << 20, i -> 2.0 * value(i, 0) + value(i, 7), 1e-6))) {
                    out.figure("2x+y", JK, bytes, "GB/s", io.jkompute.bench.Summary.of(rate(gpuTime(() -> saxpy.get().eval().close(), reps, rounds), 3.0 * bytes)));
                }
            }
            try (GpuArray r = five.get().eval()) {
                if (out.check("5-op " + formatBytes(bytes) + " " + JK, checkPrefix(r, 1 << 20,
                        i -> Math.sqrt(Math.abs(Math.sin(2f * value(i, 0) + value(i, 7)))) * 0.5, 2e-6))) {
                    out.figure("5-op", JK, bytes, "GB/s", io.jkompute.bench.Summary.of(rate(gpuTime(() -> five.get().eval().close(), reps, rounds), 3.0 * bytes)));
                }
            }
        }
    }

    private static void reductions(Recorder out, long bytes, int reps, int rounds) {
        long n = bytes / 4, cols = 4096, rows = n / cols;
        try (GpuArray x = filled(n, 3)) {
            double ref = 0;
            for (long i = 0; i < n; i++) ref += value(i, 3);
            try (GpuArray s = x.sum()) {
                double got = s.item();
                if (out.check("sum all " + formatBytes(bytes) + " " + JK, Math.abs(got - ref) <= 1e-6 * n ? null : "sum " + got + ", expected " + ref)) {
                    out.figure("sum all", JK, bytes, "GB/s", io.jkompute.bench.Summary.of(rate(gpuTime(() -> x.sum().close(), reps, rounds), bytes)));
                }
            }
            GpuArray m = x.reshape(rows, cols);
            try (GpuArray s1 = m.sum(-1); GpuArray s0 = m.sum(0)) {
                float[] g1 = s1.toFloatArray(), g0 = s0.toFloatArray();
                double r1 = 0;
                for (long j = 0; j < cols; j++) r1 += value(j, 3);
                double r0 = 0;
                for (long i = 0; i < rows; i++) r0 += value(i * cols, 3);
                out.check("sum axis -1 " + formatBytes(bytes) + " " + JK, Math.abs(g1[0] - r1) <= 1e-4 * cols ? null : "row 0 sums to " + g1[0] + ", expected " + r1);
                out.check("sum axis 0 " + formatBytes(bytes) + " " + JK, Math.abs(g0[0] - r0) <= 1e-4 * rows ? null : "column 0 sums to " + g0[0] + ", expected " + r0);
            }
            out.figure("sum axis -1", JK, bytes, "GB/s", io.jkompute.bench.Summary.of(rate(gpuTime(() -> m.sum(-1).close(), reps, rounds), bytes)));
            out.figure("sum axis 0", JK, bytes, "GB/s", io.jkompute.bench.Summary.of(rate(gpuTime(() -> m.sum(0).close(), reps, rounds), bytes)));
        }
    }

    private static void gemm(Recorder out, long n, DType t, int rounds) {
        try (GpuArray a32 = filled(n * n, 1); GpuArray b32 = filled(n * n, 2);
             GpuArray a = a32.reshape(n, n).astype(t).eval(); GpuArray b = b32.reshape(n, n).astype(t).eval()) {
            try (GpuArray c = a.matmul(b); GpuArray c32 = c.astype(DType.FLOAT32).eval()) {
                // check row 0 against the CPU (inputs rounded to t first)
                float[] row;
                try (GpuArray r0 = c32.slice(Slice.at(0)).copy()) {
                    row = r0.toFloatArray();
                }
                String fail = null;
                for (int j = 0; j < Math.min(n, 64) && fail == null; j++) {
                    double w = 0;
                    for (long p = 0; p < n; p++) w += round(value(p, 1), t) * round(value(p * n + j, 2), t);
                    double tol = t == DType.FLOAT32 ? 1e-3 * Math.sqrt(n) : 0.02 * Math.sqrt(n) + 0.01 * Math.abs(w);
                    if (Math.abs(row[j] - w) > tol) fail = "C[0," + j + "] is " + row[j] + ", expected " + w;
                }
                if (!out.check("GEMM " + t + " " + n + "³ " + JK, fail)) return;
            }
            double flops = 2.0 * n * n * n;
            double[] ns = gpuTime(() -> a.matmul(b).close(), 5, rounds);
            double[] tf = new double[ns.length];
            for (int i = 0; i < ns.length; i++) tf[i] = flops / ns[i] / 1e3; // TFLOP/s
            out.figure("GEMM " + t, JK, n, "TFLOP/s", io.jkompute.bench.Summary.of(tf));
        }
    }

    private static double round(float v, DType t) {
        if (t == DType.BFLOAT16) return Float.intBitsToFloat(Float.floatToRawIntBits(v) + 0x7fff + ((Float.floatToRawIntBits(v) >>> 16) & 1) & 0xffff0000);
        return v;
    }

    private static void latency(Recorder out, int reps) {
        try (GpuArray x = GpuArray.zeros(DType.FLOAT32, 1024)) {
            try (GpuArray r = x.add(1.0).eval()) {
                if (!out.check("op + sync " + JK, r.toFloatArray()[1023] == 1f ? null : "x + 1 is " + r.toFloatArray()[1023])) return;
            }
            double[] ns = Timing.wall(() -> {
                x.add(1.0).eval().close();
                Cuda.synchronize();
            }, reps, reps);
            double[] us = new double[ns.length];
            for (int i = 0; i < ns.length; i++) us[i] = ns[i] / 1e3;
            out.figure("op + sync", JK, 4096, "µs", io.jkompute.bench.Summary.of(us));
        }
    }
}

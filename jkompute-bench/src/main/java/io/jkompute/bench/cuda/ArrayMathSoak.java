package io.jkompute.bench.cuda;

import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.GpuArray;
import io.jkompute.cuda.Slice;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Soak of GpuArray's array math: cycles of a fused element-wise expression, full sums split over many blocks (the
 * last block's ticket and partials), row and column sums, argmax, mean and a small matmul, every result checked
 * against values known exactly on the host (small integers in float32, whose sums are exact). Each operation takes
 * its result from the pool and gives it back. Every tenth of the run: Java heap after a GC, resident memory
 * ({@code /proc/self/statm}) and free device memory ({@code cuMemGetInfo}). Exits 1 on a wrong value, or when any of
 * them grew from the second sample to the last by more than its limit (heap 32 MiB, resident 128 MiB, device 64 MiB).
 * Run: {@code java -cp ... io.jkompute.bench.cuda.ArrayMathSoak [cycles]}.
 */
public final class ArrayMathSoak {
    private ArrayMathSoak() {
    }

    // above one wave of 16-byte shares (so split over blocks, finished by the last one), with a tail of 13 elements
    private static final int N = 3 * 1024 * 1024 + 13, ROWS = 1024, COLS = 3 * 1024, MAT = 64;
    // long enough that each block's share is rounded to whole passes of its unrolled loop
    private static final int BIG = 40 * 1024 * 1024 + 13;

    public static void main(String[] args) throws IOException {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        String why = Cuda.unavailableReason();
        if (why != null) {
            System.out.println("SKIP ArrayMathSoak: CUDA is not usable here: " + why);
            return;
        }
        float[] x = new float[N], y = new float[N];
        for (int i = 0; i < N; i++) {
            x[i] = i % 7 - 3;
            y[i] = i % 5 - 2;
        }
        // 2x + y - 1 over all; the matrix view is x's first ROWS x COLS elements
        double fusedSum = 0;
        for (int i = 0; i < N; i++) fusedSum += 2 * x[i] + y[i] - 1;
        double[] rowSums = new double[ROWS], colSums = new double[COLS];
        for (int r = 0; r < ROWS; r++) {
            for (int c = 0; c < COLS; c++) {
                rowSums[r] += x[r * COLS + c];
                colSums[c] += x[r * COLS + c];
            }
        }
        int argmax = 6; // the first 3.0 (i % 7 == 6)
        double sumX = sum(x), meanX = sumX / N;
        float[] big = new float[BIG];
        for (int i = 0; i < BIG; i++) big[i] = i % 7 - 3;
        double sumBig = sum(big);
        float[] a = new float[MAT * MAT];
        for (int i = 0; i < a.length; i++) a[i] = i % 3 - 1;
        double[] mm = new double[MAT * MAT];
        for (int i = 0; i < MAT; i++) {
            for (int j = 0; j < MAT; j++) {
                double s = 0;
                for (int k = 0; k < MAT; k++) s += a[i * MAT + k] * a[k * MAT + j];
                mm[i * MAT + j] = s;
            }
        }
        int samples = 10, every = Math.max(1, cycles / samples);
        long[][] seen = new long[samples][];
        int taken = 0;
        long t0 = System.nanoTime();
        try (GpuArray gx = GpuArray.toGpu(x); GpuArray gy = GpuArray.toGpu(y); GpuArray ga = GpuArray.toGpu(a, MAT, MAT);
             GpuArray gb = GpuArray.toGpu(big); GpuArray m = gx.slice(Slice.to((long) ROWS * COLS)).reshape(ROWS, COLS)) {
            for (int cycle = 1; cycle <= cycles; cycle++) {
                try (GpuArray f = gx.mul(2).add(gy).sub(1).eval(); GpuArray s = f.sum(); GpuArray sx = gx.sum();
                     GpuArray rs = m.sum(-1); GpuArray cs = m.sum(0); GpuArray am = gx.argmax(); GpuArray mean = gx.mean();
                     GpuArray sb = gb.sum()) {
                    check(cycle, "sum(big)", sb.item(), sumBig);
                    check(cycle, "sum(2x + y - 1)", s.item(), fusedSum);
                    check(cycle, "sum(x)", sx.item(), sumX);
                    check(cycle, "argmax(x)", am.item(), argmax);
                    // float32 mean: the exact sum times 1/N, rounded to float32 once or twice
                    if (!(Math.abs(mean.item() - meanX) <= 1e-6 * Math.abs(meanX))) fail(cycle, "mean(x) = " + mean.item() + ", expected " + meanX);
                    if (cycle % 10 == 1) {
                        check(cycle, "sum(-1)", rs.toFloatArray(), rowSums);
                        check(cycle, "sum(0)", cs.toFloatArray(), colSums);
                        try (GpuArray p = ga.matmul(ga)) {
                            check(cycle, "matmul", p.toFloatArray(), mm);
                        }
                    }
                }
                if (cycle % every == 0 && taken < samples) {
                    System.gc();
                    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                    long rss = Long.parseLong(Files.readString(Path.of("/proc/self/statm")).split(" ")[1]) * 4096;
                    long free = Cuda.memoryInfo().free();
                    seen[taken++] = new long[] {heap, rss, free};
                    System.out.printf(Locale.ROOT, "cycle %,6d: %.1f s, heap %,d B, resident %,d B, device free %,d B%n", cycle,
                            (System.nanoTime() - t0) / 1e9, heap, rss, free);
                }
            }
        }
        int first = Math.min(1, taken - 1), last = taken - 1;
        long heapGrowth = seen[last][0] - seen[first][0], rssGrowth = seen[last][1] - seen[first][1];
        long deviceLoss = seen[first][2] - seen[last][2];
        boolean ok = heapGrowth < 32L << 20 && rssGrowth < 128L << 20 && deviceLoss < 64L << 20;
        System.out.printf(Locale.ROOT, "%s ArrayMathSoak: %,d cycles of 8 checked operations (+3 every tenth cycle) in %.1f s; from sample %d to %d: "
                + "heap %+,d B, resident %+,d B, device free %+,d B%n", ok ? "PASS" : "FAIL", cycles, (System.nanoTime() - t0) / 1e9,
                first + 1, last + 1, heapGrowth, rssGrowth, -deviceLoss);
        System.exit(ok ? 0 : 1);
    }

    private static double sum(float[] v) {
        double s = 0;
        for (float f : v) s += f;
        return s;
    }

    private static void check(int cycle, String what, double got, double want) {
        if (got != want) fail(cycle, what + " = " + got + ", expected " + want);
    }

    private static void check(int cycle, String what, float[] got, double[] want) {
        if (got.length != want.length) fail(cycle, what + " has " + got.length + " values, expected " + want.length);
        for (int i = 0; i < got.length; i++) {
            if (got[i] != want[i]) fail(cycle, what + "[" + i + "] = " + got[i] + ", expected " + want[i]);
        }
    }

    private static void fail(int cycle, String message) {
        System.out.println("FAIL ArrayMathSoak: cycle " + cycle + ": " + message);
        System.exit(1);
    }
}

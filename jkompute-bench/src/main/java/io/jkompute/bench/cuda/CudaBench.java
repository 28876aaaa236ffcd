package io.jkompute.bench.cuda;

import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.CudaDevice;
import io.jkompute.cuda.CudaModule;
import io.jkompute.cuda.DeviceMemory;
import io.jkompute.cuda.Dim3;
import io.jkompute.cuda.Event;
import io.jkompute.cuda.GpuArray;
import io.jkompute.cuda.Kernel;
import io.jkompute.cuda.PinnedMemory;
import io.jkompute.cuda.Stream;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * One run, one table: saxpy through GpuArray + Kernel against the same PTX driven by minimal raw FFM calls
 * ({@link RawCuda}), launch + synchronize latency of both, and pinned host↔device copy bandwidth.
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp "jars/*" io.jkompute.bench.cuda.CudaBench [log2(n), default 25]
 * </pre>
 * The two saxpy paths alternate trial by trial so clock or thermal drift hits both alike; each figure is the median.
 */
public final class CudaBench {
    private CudaBench() {}

    @FunctionalInterface
    interface Body {
        void run() throws Throwable;
    }

    public static void main(String[] args) throws Throwable {
        int log2n = args.length > 0 ? Integer.parseInt(args[0]) : 25;
        int n = 1 << log2n;
        CudaDevice dev = Cuda.device(0);
        System.out.printf(Locale.ROOT, "jkompute-cuda benchmark on %s (compute %d.%d, %d SMs, %d MiB), CUDA driver %d, Java %s%n",
                dev.name(), dev.computeCapabilityMajor(), dev.computeCapabilityMinor(), dev.multiprocessorCount(),
                dev.totalMemory() >> 20, Cuda.driverVersion(), Runtime.version());

        Random rnd = new Random(1);
        float a = 1e-3f;
        float[] x = new float[n], y = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = rnd.nextFloat();
            y[i] = rnd.nextFloat();
        }
        Dim3 grid = Dim3.blocksFor(n, 256), block = Dim3.of(256), one = Dim3.of(1);
        try (CudaModule module = CudaModule.loadPtx(SaxpyKernel.PTX); Stream s = Stream.create();
             GpuArray gx = GpuArray.toGpu(x); GpuArray gy = GpuArray.toGpu(y);
             RawCuda raw = new RawCuda(n, a, x, y); RawCuda rawTiny = new RawCuda(1, a, x, y)) {
            Kernel saxpy = module.kernel("saxpy");

            // correctness first: one saxpy, compared with the CPU's fused multiply-add
            saxpy.launch(s, grid, block, 0, n, a, gx, gy);
            s.synchronize();
            float[] got = gy.toFloatArray();
            for (int i = 0; i < n; i++) {
                if (got[i] != Math.fma(a, x[i], y[i])) throw new AssertionError("saxpy wrong at " + i);
            }

            int iters = 50, trials = 11;
            Body jk = () -> {
                for (int i = 0; i < iters; i++) saxpy.launch(s, grid, block, 0, n, a, gx, gy);
                s.synchronize();
            };
            Body rw = () -> {
                for (int i = 0; i < iters; i++) raw.launch();
                raw.synchronize();
            };
            double[] jkT = new double[trials], rawT = new double[trials];
            for (int w = 0; w < 3; w++) {
                time(jk);
                time(rw);
            }
            for (int t = 0; t < trials; t++) {
                jkT[t] = time(jk) / iters;
                rawT[t] = time(rw) / iters;
            }
            double jkSax = median(jkT), rawSax = median(rawT);
            double bytes = 12.0 * n;

            // launch + synchronize of a one-thread saxpy: the per-call cost of each path
            Body jkTiny = () -> {
                saxpy.launch(s, one, one, 0, 1, a, gx, gy);
                s.synchronize();
            };
            Body rwTiny = () -> {
                rawTiny.launch();
                rawTiny.synchronize();
            };
            int rounds = 20, per = 1000;
            double[] jkL = new double[rounds * per], rawL = new double[rounds * per];
            for (int w = 0; w < 5000; w++) {
                jkTiny.run();
                rwTiny.run();
            }
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < per; i++) jkL[r * per + i] = time(jkTiny);
                for (int i = 0; i < per; i++) rawL[r * per + i] = time(rwTiny);
            }
            double jkP50 = percentile(jkL, 50), rawP50 = percentile(rawL, 50);
            double jkMean = Arrays.stream(jkL).average().orElseThrow(), rawMean = Arrays.stream(rawL).average().orElseThrow();

            System.out.println();
            System.out.println("| measurement | jkompute-cuda | raw FFM | ratio | target |");
            System.out.println("|---|---|---|---|---|");
            row("saxpy n=2^" + log2n + ", µs per kernel (median of " + trials + "×" + iters + ")", jkSax, rawSax,
                    String.format(Locale.ROOT, "throughput jk/raw = %.4f", rawSax / jkSax), "≥ 0.98");
            row("saxpy effective bandwidth, GB/s", bytes / jkSax / 1e3, bytes / rawSax / 1e3, "", "");
            row("launch + stream sync, µs p50 (" + rounds * per + " each)", jkP50, rawP50,
                    String.format(Locale.ROOT, "latency jk/raw = %.3f", jkP50 / rawP50), "≤ 1.1");
            row("launch + stream sync, µs mean", jkMean, rawMean, String.format(Locale.ROOT, "%.3f", jkMean / rawMean), "");
            row("launch + stream sync, µs p99", percentile(jkL, 99), percentile(rawL, 99), "", "");

            for (long size : new long[] {4L << 10, 1L << 20, 16L << 20, 256L << 20}) {
                double[] bw = pinnedBandwidth(size, s);
                System.out.printf(Locale.ROOT, "| pinned copy %s, GB/s (GPU events) | H2D %.1f | D2H %.1f | | |%n", human(size), bw[0], bw[1]);
            }
            float[] heap = new float[64 << 20];
            try (GpuArray h = GpuArray.toGpu(heap)) {
                double up = 0, down = 0;
                for (int r = 0; r < 3; r++) {
                    up = Math.max(up, heap.length * 4.0 / time(() -> h.set(heap)) / 1e3);
                    down = Math.max(down, heap.length * 4.0 / time(() -> h.get(heap)) / 1e3);
                }
                System.out.printf(Locale.ROOT, "| Java heap float[] 256 MiB via GpuArray.set/get (pageable), GB/s | H2D %.1f | D2H %.1f | | |%n", up, down);
            }
        }
    }

    /** H2D and D2H GB/s for back-to-back async copies of {@code size} bytes between pinned and device memory. */
    static double[] pinnedBandwidth(long size, Stream s) {
        int reps = (int) Math.max(10, Math.min(1000, (1L << 30) / size));
        try (PinnedMemory host = PinnedMemory.allocate(size); DeviceMemory dev = DeviceMemory.allocate(size);
             Event e0 = Event.create(); Event e1 = Event.create()) {
            host.segment().fill((byte) 1);
            double[] best = new double[2];
            for (int dir = 0; dir < 2; dir++) {
                for (int trial = 0; trial < 3; trial++) {
                    e0.record(s);
                    for (int i = 0; i < reps; i++) {
                        if (dir == 0) dev.copyFromHostAsync(host.segment(), 0, s);
                        else dev.copyToHostAsync(0, host.segment(), s);
                    }
                    e1.record(s);
                    e1.synchronize();
                    double gbs = size * (double) reps / (e1.elapsedMillisSince(e0) * 1e-3) / 1e9;
                    best[dir] = Math.max(best[dir], gbs);
                }
            }
            return best;
        }
    }

    /** Nanoseconds of one run, in microseconds. */
    static double time(Body b) throws Throwable {
        long t0 = System.nanoTime();
        b.run();
        return (System.nanoTime() - t0) / 1e3;
    }

    static double median(double[] v) {
        return percentile(v, 50);
    }

    static double percentile(double[] v, double p) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[(int) Math.min(c.length - 1, Math.round(p / 100 * (c.length - 1)))];
    }

    static void row(String what, double jk, double raw, String ratio, String target) {
        System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %s | %s |%n", what, jk, raw, ratio, target);
    }

    static String human(long bytes) {
        return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }
}

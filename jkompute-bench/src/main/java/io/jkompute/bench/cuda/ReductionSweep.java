package io.jkompute.bench.cuda;

import io.jkompute.bench.internal.CudaSuite;
import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.GpuArray;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Sweep of the reduction kernels' knobs (the {@code jkompute.cuda.reduce.*} system properties, documented in
 * jkompute-cuda's {@code ReductionTuning}) on a 1 GiB float32 array, timed exactly as the cuda suite times its sums
 * (warm-up, CUDA events around 10 back-to-back sums, 5 rounds, the median): {@code sum()} of all elements and
 * {@code sum(-1)} of the (65536, 4096) view. Each configuration's results are checked against float64 sums on the
 * host; a wrong one is reported and never chosen. One line per configuration, then {@code BEST sum_all},
 * {@code BEST sum_rows} and {@code BEST both} (the best lower ratio to the reference rates) with the flags that
 * select it. Arguments: {@code split} for the split-row sweep ({@link #splitConfigs()}) or {@code loads} for the load
 * instructions ({@link #loadConfigs()}) instead of the 40 launch configurations, then the reference GB/s for sum all and sum(-1) (default: CuPy on an H200, 4515 and 4585).
 * Run: {@code java -cp ... io.jkompute.bench.cuda.ReductionSweep [split|loads] [refAll] [refRows]}, or {@code ... ReductionSweep bulk [rounds] [refAll]}
 * for the copy and schedule variants ({@link #bulkConfigs()}), timed interleaved against the defaults.
 */
public final class ReductionSweep {
    private ReductionSweep() {
    }

    private static final String P = "jkompute.cuda.reduce.";
    private static final long BYTES = 1L << 30, N = BYTES / 4, COLS = 4096, ROWS = N / COLS;
    private static final int SALT = 3, REPS = 10, ROUNDS = 5;

    private static final String[] KNOBS = {"threads", "blocksPerSm", "loads", "rowMode", "rowThreads", "load", "tile", "finish",
        "copy", "stage", "stages", "schedule"};

    /**
     * One knob combination: threads, blocksPerSm, loads, rowMode, rowThreads, load, tile, finish, and how a split
     * row's share is read (copy: loads or bulk, with stage bytes x stages) and scheduled (static or dynamic).
     */
    record Config(int threads, int blocksPerSm, int loads, String rowMode, int rowThreads, String load, int tile, String finish,
                  String copy, int stage, int stages, String schedule) {
        Config(int threads, int blocksPerSm, int loads, String rowMode, int rowThreads, String load) {
            this(threads, blocksPerSm, loads, rowMode, rowThreads, load, 0, "last");
        }

        Config(int threads, int blocksPerSm, int loads, String rowMode, int rowThreads, String load, int tile, String finish) {
            this(threads, blocksPerSm, loads, rowMode, rowThreads, load, tile, finish, "loads", 16384, 2, "static");
        }

        void apply() {
            System.setProperty(P + "threads", Integer.toString(threads));
            System.setProperty(P + "blocksPerSm", Integer.toString(blocksPerSm));
            System.setProperty(P + "loads", Integer.toString(loads));
            System.setProperty(P + "rowMode", rowMode);
            System.setProperty(P + "rowThreads", Integer.toString(rowThreads));
            System.setProperty(P + "load", load);
            System.setProperty(P + "tile", Integer.toString(tile));
            System.setProperty(P + "finish", finish);
            System.setProperty(P + "copy", copy);
            System.setProperty(P + "stage", Integer.toString(stage));
            System.setProperty(P + "stages", Integer.toString(stages));
            System.setProperty(P + "schedule", schedule);
        }

        String flags() {
            return "-D" + P + "threads=" + threads + " -D" + P + "blocksPerSm=" + blocksPerSm + " -D" + P + "loads=" + loads
                    + " -D" + P + "rowMode=" + rowMode + " -D" + P + "rowThreads=" + rowThreads + " -D" + P + "load=" + load
                    + " -D" + P + "tile=" + tile + " -D" + P + "finish=" + finish + " -D" + P + "copy=" + copy + " -D" + P + "stage=" + stage
                    + " -D" + P + "stages=" + stages + " -D" + P + "schedule=" + schedule;
        }
    }

    /**
     * The configurations: the defaults first, then load instruction x loads in flight x (block size, blocks per SM)
     * of the split full sum x the short-row kernel (one warp per row, or one block of 128 or 256 threads per row), and
     * a few more load instructions and depths. 40 in all.
     */
    static List<Config> configs() {
        List<Config> c = new ArrayList<>();
        int[][] grids = {{512, 2}, {256, 4}, {256, 8}};
        String[][] rowKinds = {{"auto", "256"}, {"block", "256"}, {"block", "128"}};
        for (String load : new String[] {"default", "nc_na"}) {
            for (int loads : new int[] {8, 4}) {
                for (int[] g : grids) {
                    for (String[] r : rowKinds) c.add(new Config(g[0], g[1], loads, r[0], Integer.parseInt(r[1]), load));
                }
            }
        }
        c.add(new Config(256, 4, 4, "auto", 256, "cs"));
        c.add(new Config(512, 2, 8, "block", 256, "cs"));
        c.add(new Config(256, 4, 4, "block", 256, "nc"));
        c.add(new Config(256, 8, 2, "auto", 256, "default"));
        return c;
    }

    /**
     * The split-row sweep: the default launch configuration with the long row cut into one wave of blocks or into
     * blocks of 32 Ki to 1 Mi elements, its partials combined by a second kernel or by the last block. 12 in all.
     */
    static List<Config> splitConfigs() {
        List<Config> c = new ArrayList<>();
        for (int tile : new int[] {0, 32768, 65536, 131072, 262144, 1048576}) {
            for (String finish : new String[] {"kernel", "last"}) c.add(new Config(512, 2, 8, "auto", 256, "default", tile, finish));
        }
        return c;
    }

    /** The load sweep: each 16-byte load instruction under the default split, for two block shapes. 12 in all. */
    static List<Config> loadConfigs() {
        List<Config> c = new ArrayList<>();
        for (int[] g : new int[][] {{512, 2}, {256, 4}}) {
            for (String load : new String[] {"default", "nc", "nc_na", "cs", "l2_256", "nc_l2_256"}) c.add(new Config(g[0], g[1], 8, "auto", 256, load));
        }
        return c;
    }

    /**
     * The copy and schedule sweep ({@code bulk}): the defaults first, then Hopper's bulk copies into 2 to 4 stages of
     * 8 to 23 KiB for three block shapes, persistent blocks taking 64 to 256 KiB chunks from a counter (with loads and
     * with bulk copies), and two of CUB's shapes for sm_90-class devices (256 threads, 16 float32 per thread in 4
     * vector loads: an even share of 12 such tiles per block, 8 blocks per SM, combined by a second kernel; and one
     * wave of 8 such blocks per SM). 16 in all; GeneratedKernelsCompileTest compiles the same list.
     */
    static List<Config> bulkConfigs() {
        List<Config> c = new ArrayList<>();
        c.add(new Config(512, 2, 8, "auto", 256, "default", 0, "last", "loads", 16384, 2, "static"));
        c.add(new Config(512, 2, 8, "auto", 256, "default", 0, "last", "bulk", 16384, 2, "static"));
        c.add(new Config(512, 2, 8, "auto", 256, "default", 0, "last", "bulk", 8192, 4, "static"));
        c.add(new Config(512, 2, 8, "auto", 256, "default", 0, "last", "bulk", 23552, 2, "static"));
        c.add(new Config(256, 4, 8, "auto", 256, "default", 0, "last", "bulk", 16384, 2, "static"));
        c.add(new Config(256, 4, 8, "auto", 256, "default", 0, "last", "bulk", 11264, 4, "static"));
        c.add(new Config(256, 4, 8, "auto", 256, "default", 0, "last", "bulk", 15360, 3, "static"));
        c.add(new Config(128, 8, 8, "auto", 256, "default", 0, "last", "bulk", 8192, 3, "static"));
        c.add(new Config(512, 2, 8, "auto", 256, "default", 16384, "last", "loads", 16384, 2, "dynamic"));
        c.add(new Config(512, 2, 8, "auto", 256, "default", 32768, "last", "loads", 16384, 2, "dynamic"));
        c.add(new Config(512, 2, 8, "auto", 256, "default", 65536, "last", "loads", 16384, 2, "dynamic"));
        c.add(new Config(256, 4, 8, "auto", 256, "default", 32768, "last", "loads", 16384, 2, "dynamic"));
        c.add(new Config(512, 2, 8, "auto", 256, "default", 65536, "last", "bulk", 16384, 2, "dynamic"));
        c.add(new Config(256, 4, 8, "auto", 256, "default", 32768, "last", "bulk", 11264, 4, "dynamic"));
        c.add(new Config(256, 8, 4, "auto", 256, "default", 49152, "kernel", "loads", 16384, 2, "static"));
        c.add(new Config(256, 8, 4, "auto", 256, "default", 0, "last", "loads", 16384, 2, "static"));
        return c;
    }

    record Result(Config config, double all, double rows, String error) {
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("bulk")) {
            bulk(args.length > 1 ? Integer.parseInt(args[1]) : 15, args.length > 2 ? Double.parseDouble(args[2]) : 4515);
            return;
        }
        String set = args.length > 0 && (args[0].equals("split") || args[0].equals("loads")) ? args[0] : "";
        int a0 = set.isEmpty() ? 0 : 1;
        double refAll = args.length > a0 ? Double.parseDouble(args[a0]) : 4515, refRows = args.length > a0 + 1 ? Double.parseDouble(args[a0 + 1]) : 4585;
        String why = Cuda.unavailableReason();
        if (why != null) {
            System.out.println("SKIP ReductionSweep: CUDA is not usable here: " + why);
            return;
        }
        long t0 = System.nanoTime();
        // host references in float64, of the same float32 values the device holds
        double refSum = 0;
        double[] rowRef = new double[(int) ROWS];
        for (long r = 0; r < ROWS; r++) {
            double s = 0;
            for (long j = 0; j < COLS; j++) s += CudaSuite.value(r * COLS + j, SALT);
            rowRef[(int) r] = s;
            refSum += s;
        }
        List<Result> results = new ArrayList<>();
        List<Config> configs = switch (set) {
            case "split" -> splitConfigs();
            case "loads" -> loadConfigs();
            default -> configs();
        };
        System.out.printf(Locale.ROOT, "ReductionSweep: %d configurations, float32, %d MiB, sum all and sum(-1) of (%d, %d); reference GB/s %.0f and %.0f%n",
                configs.size(), BYTES >> 20, ROWS, COLS, refAll, refRows);
        try (GpuArray x = CudaSuite.filled(N, SALT)) {
            GpuArray m = x.reshape(ROWS, COLS);
            for (int i = 0; i < configs.size(); i++) {
                Config c = configs.get(i);
                c.apply();
                Result res;
                try {
                    String err = check(x, m, refSum, rowRef);
                    double all = err != null ? 0 : median(rate(CudaSuite.gpuTime(() -> x.sum().close(), REPS, ROUNDS)));
                    double rows = err != null ? 0 : median(rate(CudaSuite.gpuTime(() -> m.sum(-1).close(), REPS, ROUNDS)));
                    res = new Result(c, all, rows, err);
                } catch (RuntimeException e) {
                    res = new Result(c, 0, 0, e.toString());
                }
                results.add(res);
                if (res.error != null) {
                    System.out.printf(Locale.ROOT, "%2d WRONG %s  %s%n", i, res.error, c.flags());
                } else {
                    System.out.printf(Locale.ROOT, "%2d sum_all %7.1f GB/s (%.3f)  sum_rows %7.1f GB/s (%.3f)  %s%n", i, res.all, res.all / refAll,
                            res.rows, res.rows / refRows, c.flags());
                }
            }
        } finally {
            for (String k : KNOBS) System.clearProperty(P + k);
        }
        Result bestAll = null, bestRows = null, bestBoth = null;
        for (Result r : results) {
            if (r.error != null) continue;
            if (bestAll == null || r.all > bestAll.all) bestAll = r;
            if (bestRows == null || r.rows > bestRows.rows) bestRows = r;
            if (bestBoth == null || Math.min(r.all / refAll, r.rows / refRows) > Math.min(bestBoth.all / refAll, bestBoth.rows / refRows)) bestBoth = r;
        }
        if (bestAll == null) {
            System.out.println("FAIL ReductionSweep: no configuration gave correct sums");
            System.exit(1);
        }
        System.out.printf(Locale.ROOT, "BEST sum_all %s   (%.1f GB/s, %.3f x reference)%n", bestAll.config.flags(), bestAll.all, bestAll.all / refAll);
        System.out.printf(Locale.ROOT, "BEST sum_rows %s   (%.1f GB/s, %.3f x reference)%n", bestRows.config.flags(), bestRows.rows, bestRows.rows / refRows);
        System.out.printf(Locale.ROOT, "BEST both %s   (sum_all %.3f, sum_rows %.3f x reference)%n", bestBoth.config.flags(), bestBoth.all / refAll,
                bestBoth.rows / refRows);
        System.out.printf(Locale.ROOT, "ReductionSweep: %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    /**
     * The {@code bulk} set: sum() of all elements of a float32 array at 1 GiB and of its first 256 MiB (a view), each
     * configuration's result checked exactly and twice (the values are small integers, so every partial sum is exact
     * in float32 and any lost, doubled or misplaced element shows, whatever the order of combination; two launches
     * must agree bit for bit). Then {@code rounds} rounds: in each, every configuration in turn (starting one later
     * each round) times 10 back-to-back sums per size between CUDA events; the median over rounds per configuration and
     * size, and its ratio to the defaults' median (the first configuration) in this run.
     */
    static void bulk(int rounds, double refAll) {
        String why = Cuda.unavailableReason();
        if (why != null) {
            System.out.println("SKIP ReductionSweep: CUDA is not usable here: " + why);
            return;
        }
        long t0 = System.nanoTime();
        long small = N / 4;
        long expAll = 0, expSmall = 0;
        for (long i = 0; i < N; i++) {
            long v = (i * 7) % 9 - 4;
            expAll += v;
            if (i < small) expSmall += v;
        }
        List<Config> configs = new ArrayList<>(bulkConfigs());
        // -Dsweep.copy=loads keeps the configurations without bulk copies (the defaults stay first)
        String only = System.getProperty("sweep.copy");
        if (only != null) configs.removeIf(c -> !c.copy().equals(only));
        io.jkompute.cuda.CudaDevice dev = Cuda.device();
        System.out.printf(Locale.ROOT, "ReductionSweep bulk: %d configurations on %s (sm_%d%d, %d SMs), float32 sum all at %d MiB and %d MiB, %d rounds, "
                + "exact sums %d and %d%n", configs.size(), dev.name(), dev.computeCapabilityMajor(), dev.computeCapabilityMinor(), dev.multiprocessorCount(),
                BYTES >> 20, (small * 4) >> 20, rounds, expAll, expSmall);
        double[][] big = new double[configs.size()][rounds], part = new double[configs.size()][rounds];
        String[] error = new String[configs.size()];
        try (GpuArray x = integers(N)) {
            GpuArray q = x.slice(io.jkompute.cuda.Slice.range(0, small));
            for (int i = 0; i < configs.size(); i++) {
                configs.get(i).apply();
                try {
                    error[i] = exact(x, expAll, "1 GiB");
                    if (error[i] == null) error[i] = exact(q, expSmall, "256 MiB");
                    if (error[i] == null) {
                        // warm-up: the kernels built, the host path compiled
                        CudaSuite.gpuTime(() -> x.sum().close(), REPS, 1);
                        CudaSuite.gpuTime(() -> q.sum().close(), REPS, 1);
                    }
                } catch (RuntimeException e) {
                    error[i] = e.toString();
                }
                System.out.printf(Locale.ROOT, "%2d %s  %s%n", i, error[i] == null ? "exact" : "WRONG " + error[i], configs.get(i).flags());
            }
            io.jkompute.cuda.Stream s = io.jkompute.cuda.Stream.defaultStream();
            try (io.jkompute.cuda.Event a = io.jkompute.cuda.Event.create(); io.jkompute.cuda.Event b = io.jkompute.cuda.Event.create()) {
                for (int r = 0; r < rounds; r++) {
                    for (int o = 0; o < configs.size(); o++) {
                        int i = (o + r) % configs.size();
                        if (error[i] != null) continue;
                        configs.get(i).apply();
                        big[i][r] = time(x, a, b, s);
                        part[i][r] = time(q, a, b, s);
                    }
                }
            }
        } finally {
            for (String k : KNOBS) System.clearProperty(P + k);
        }
        if (error[0] != null) {
            System.out.println("FAIL ReductionSweep: the defaults gave a wrong sum");
            System.exit(1);
        }
        double d1 = median(big[0]), d2 = median(part[0]);
        int best = 0;
        for (int i = 0; i < configs.size(); i++) {
            if (error[i] != null) continue;
            double g1 = BYTES / median(big[i]), g2 = small * 4 / median(part[i]);
            System.out.printf(Locale.ROOT, "%2d sum_1GiB %7.1f GB/s %6.1f us (%.3f x defaults, %.3f x ref)  sum_256MiB %7.1f GB/s %6.1f us (%.3f x defaults)  %s%n",
                    i, g1, median(big[i]) / 1e3, d1 / median(big[i]), g1 / refAll, g2, median(part[i]) / 1e3, d2 / median(part[i]), configs.get(i).flags());
            if (median(big[i]) < median(big[best])) best = i;
        }
        System.out.printf(Locale.ROOT, "BEST sum_all %s   (%.1f GB/s, %.3f x defaults in this run)%n", configs.get(best).flags(), BYTES / median(big[best]),
                d1 / median(big[best]));
        System.out.printf(Locale.ROOT, "ReductionSweep: %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    /** GPU ns of one sum(), from 10 back-to-back sums between two events. */
    private static double time(GpuArray x, io.jkompute.cuda.Event a, io.jkompute.cuda.Event b, io.jkompute.cuda.Stream s) {
        a.record(s);
        for (int i = 0; i < REPS; i++) x.sum().close();
        b.record(s);
        b.synchronize();
        return b.elapsedMillisSince(a) * 1e6 / REPS;
    }

    /** float32 values (i * 7) mod 9 - 4: small integers whose partial sums stay far below 2^24, so exact in float32. */
    static GpuArray integers(long n) {
        try (GpuArray i = GpuArray.arange(0, n, 1, io.jkompute.cuda.DType.FLOAT64);
             GpuArray t = i.mul(7.0).eval(); GpuArray q = t.div(9.0).eval();
             GpuArray f = q.astype(io.jkompute.cuda.DType.INT64).astype(io.jkompute.cuda.DType.FLOAT64).eval()) {
            return t.sub(f.mul(9.0)).sub(4.0).astype(io.jkompute.cuda.DType.FLOAT32).eval();
        }
    }

    /** null when two sums of {@code x} both equal {@code expected} exactly. */
    private static String exact(GpuArray x, long expected, String what) {
        try (GpuArray s1 = x.sum(); GpuArray s2 = x.sum()) {
            double g1 = s1.item(), g2 = s2.item();
            if (g1 != expected) return "sum " + what + " " + g1 + ", expected " + expected;
            if (Double.doubleToRawLongBits(g1) != Double.doubleToRawLongBits(g2)) return "sum " + what + " differs between launches: " + g1 + ", " + g2;
        }
        return null;
    }

    /** null when both sums match the host's float64 sums, else what differs. */
    private static String check(GpuArray x, GpuArray m, double refSum, double[] rowRef) {
        try (GpuArray s = x.sum()) {
            double got = s.item();
            // float32 accumulation over 2^28 values in [-1, 1): the cuda suite's tolerance
            if (!(Math.abs(got - refSum) <= 1e-6 * N)) return "sum all " + got + ", expected " + refSum;
        }
        try (GpuArray s = m.sum(-1)) {
            float[] g = s.toFloatArray();
            if (g.length != rowRef.length) return "sum(-1) has " + g.length + " values, expected " + rowRef.length;
            for (int r = 0; r < g.length; r++) {
                // a float32 tree over 4096 values of at most 1 is off by far less than 0.04; a lost or doubled element is not
                if (!(Math.abs(g[r] - rowRef[r]) <= 1e-5 * COLS)) return "row " + r + " sums to " + g[r] + ", expected " + rowRef[r];
            }
        }
        return null;
    }

    private static double[] rate(double[] ns) {
        double[] r = new double[ns.length];
        for (int i = 0; i < ns.length; i++) r[i] = BYTES / ns[i];
        return r;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}

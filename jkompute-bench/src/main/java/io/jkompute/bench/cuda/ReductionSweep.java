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
 * Run: {@code java -cp ... io.jkompute.bench.cuda.ReductionSweep [split|loads] [refAll] [refRows]}.
 */
public final class ReductionSweep {
    private ReductionSweep() {
    }

    private static final String P = "jkompute.cuda.reduce.";
    private static final long BYTES = 1L << 30, N = BYTES / 4, COLS = 4096, ROWS = N / COLS;
    private static final int SALT = 3, REPS = 10, ROUNDS = 5;

    private static final String[] KNOBS = {"threads", "blocksPerSm", "loads", "rowMode", "rowThreads", "load", "tile", "finish"};

    /** One knob combination: threads, blocksPerSm, loads, rowMode, rowThreads, load, tile, finish. */
    record Config(int threads, int blocksPerSm, int loads, String rowMode, int rowThreads, String load, int tile, String finish) {
        Config(int threads, int blocksPerSm, int loads, String rowMode, int rowThreads, String load) {
            this(threads, blocksPerSm, loads, rowMode, rowThreads, load, 0, "last");
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
        }

        String flags() {
            return "-D" + P + "threads=" + threads + " -D" + P + "blocksPerSm=" + blocksPerSm + " -D" + P + "loads=" + loads
                    + " -D" + P + "rowMode=" + rowMode + " -D" + P + "rowThreads=" + rowThreads + " -D" + P + "load=" + load
                    + " -D" + P + "tile=" + tile + " -D" + P + "finish=" + finish;
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

    record Result(Config config, double all, double rows, String error) {
    }

    public static void main(String[] args) {
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

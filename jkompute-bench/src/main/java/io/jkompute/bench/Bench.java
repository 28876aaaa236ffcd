package io.jkompute.bench;

import io.jkompute.Manager;
import io.jkompute.Shutdown;
import io.jkompute.bench.internal.BandwidthSuite;
import io.jkompute.bench.internal.ChainSuite;
import io.jkompute.bench.internal.Context;
import io.jkompute.bench.internal.GraphSuite;
import io.jkompute.bench.internal.LatencySuite;
import io.jkompute.bench.internal.RawCuda;
import io.jkompute.bench.internal.Recorder;
import io.jkompute.bench.internal.ReductionSuite;
import io.jkompute.bench.internal.Suite;
import io.jkompute.bench.internal.ThroughputSuite;
import io.jkompute.bench.internal.TransferSuite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the benchmark suites on Vulkan device 0, each beside its raw baselines, and returns a {@link Report}.
 * A suite that throws is recorded as a failed check and the run goes on with the next one.
 *
 * <pre>{@code
 * Report r = Bench.run(BenchOptions.quickMode(), Progress.NONE);
 * System.out.print(TextReport.render(r));
 * }</pre>
 */
public final class Bench {
    private Bench() {}

    static Suite suite(String name) {
        return switch (name) {
            case "bandwidth" -> new BandwidthSuite();
            case "latency" -> new LatencySuite();
            case "throughput" -> new ThroughputSuite();
            case "transfers" -> new TransferSuite();
            case "graph" -> new GraphSuite();
            case "reduction" -> new ReductionSuite();
            case "cuda" -> new io.jkompute.bench.internal.CudaSuite();
            case "chain" -> new ChainSuite();
            default -> throw new IllegalArgumentException("unknown suite " + name);
        };
    }

    /**
     * Runs the chosen suites on the default device, telling {@code progress} after each step; the report holds every
     * figure and check.
     */
    public static Report run(BenchOptions options, Progress progress) {
        // at Ctrl-C or SIGTERM the stop waits until this run has unwound: the raw Vulkan baselines own devices of
        // their own, which must be destroyed by their suite before the instance goes (a stop that closed the Manager
        // and the instance during a raw probe crashed the NVIDIA driver)
        CountDownLatch unwound = new CountDownLatch(1);
        try (Shutdown.Registration stop = Shutdown.onStop("the benchmark", () -> {
            try {
                unwound.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        })) {
            return runSuites(options, progress);
        } finally {
            unwound.countDown();
        }
    }

    private static Report runSuites(BenchOptions options, Progress progress) {
        long t0 = System.nanoTime();
        List<Suite> suites = options.suites().stream().map(Bench::suite).toList();
        try (Manager mgr = new Manager(); Context ctx = new Context(mgr, options, progress)) {
            int total = suites.stream().mapToInt(s -> s.steps(ctx)).sum();
            RawCuda cuda = ctx.cuda();
            Environment env = Environment.of(mgr.deviceProperties(), cuda == null ? null : cuda.deviceName(),
                    cuda == null ? null : cuda.driverVersion());
            ctx.begin("", total);
            List<SuiteResult> results = new ArrayList<>();
            int planned = 0;
            for (Suite s : suites) {
                planned += s.steps(ctx);
                ctx.begin(s.name(), total);
                Recorder rec = new Recorder(s.name());
                long s0 = System.nanoTime();
                try {
                    s.run(ctx, rec);
                } catch (RuntimeException | OutOfMemoryError e) {
                    if (Shutdown.isStopping()) {
                        // Ctrl-C or SIGTERM: the Manager refused the next submission on purpose; unwind, so the
                        // Manager closes here on its own thread once what was submitted has completed
                        throw e;
                    }
                    rec.failed(e);
                }
                ctx.stepsTo(planned);
                results.add(rec.result(s.title(), (System.nanoTime() - s0) / 1e9));
            }
            if (cuda != null && !cuda.deviceUuidHex().equalsIgnoreCase(env.deviceUuid())) {
                results.add(new SuiteResult("environment", "Environment", List.of(new Check("environment",
                        "raw CUDA runs on the Vulkan device", false, "CUDA device 0 (" + cuda.deviceUuidHex()
                                + ") is not Vulkan device 0 (" + env.deviceUuid() + ")")),
                        List.of(), List.of(), List.of(), null, 0));
            }
            return new Report(env, options, List.copyOf(results), (System.nanoTime() - t0) / 1e9);
        }
    }

    /**
     * Writes {@code bench.json}, {@code index.html} and {@code BENCHMARKS.md} into {@code dir}; returns the JSON file.
     */
    public static Path writeReports(Report r, Path dir) throws java.io.IOException {
        java.nio.file.Files.createDirectories(dir);
        Path json = dir.resolve("bench.json");
        java.nio.file.Files.writeString(json, JsonReport.render(r));
        java.nio.file.Files.writeString(dir.resolve("index.html"), HtmlReport.render(r));
        java.nio.file.Files.writeString(dir.resolve("BENCHMARKS.md"), MarkdownReport.render(r));
        return json;
    }

    /**
     * {@code java -cp ... io.jkompute.bench.Bench [--quick] [suite ...]}: runs, prints the table, writes
     * {@code bench-report/}. Exits 1 when a correctness check failed.
     */
    public static void main(String[] args) throws Exception {
        boolean quick = false;
        List<String> names = new ArrayList<>();
        for (String a : args) {
            if (a.equals("--quick")) quick = true;
            else names.add(a);
        }
        BenchOptions base = quick ? BenchOptions.quickMode() : BenchOptions.full();
        BenchOptions opts = new BenchOptions(names.isEmpty() ? BenchOptions.SUITES : names, base.sizes(), quick);
        Report r = run(opts, (suite, label, done, total) -> System.err.printf("[%d/%d] %s%n", done, total, label));
        System.out.print(TextReport.render(r));
        writeReports(r, Path.of("bench-report"));
        System.exit(r.checksPassed() ? 0 : 1);
    }
}

package io.jkompute.cli;

import io.jkompute.bench.Bench;
import io.jkompute.bench.BenchOptions;
import io.jkompute.bench.HtmlReport;
import io.jkompute.bench.JsonReport;
import io.jkompute.bench.MarkdownReport;
import io.jkompute.bench.Progress;
import io.jkompute.bench.Ratio;
import io.jkompute.bench.Report;
import io.jkompute.bench.TextReport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code jkompute bench}: the suites of jkompute-bench, each beside its raw Vulkan and raw CUDA baselines, with a
 * progress bar on stderr, the table on stdout, and optional JSON, HTML and Markdown reports. Exits 1 when a
 * correctness check fails; targets are reported, and enforced only with {@code --enforce-targets} (exit 1 too).
 */
@Command(name = "bench", description = "Benchmark jkompute against raw Vulkan and raw CUDA on the same GPU, in the same run.")
final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--suite", split = ",", paramLabel = "NAME", completionCandidates = SuiteNames.class,
            description = "suite(s) to run: ${COMPLETION-CANDIDATES} (default: all)")
    List<String> suites;

    @Option(names = "--sizes", split = ",", paramLabel = "SIZE",
            description = "buffer sizes for the size sweeps, e.g. 1M,16M,1G (default: 1M..1G; quick: 64K..1M)")
    List<String> sizes;

    @Option(names = "--quick", description = "small sizes and few repetitions (CI on a CPU driver); checks still run")
    boolean quick;

    @Option(names = "--json", paramLabel = "FILE", description = "write every figure as JSON")
    Path json;

    @Option(names = "--report", paramLabel = "DIR", description = "write bench.json, index.html (charts) and BENCHMARKS.md")
    Path report;

    @Option(names = "--markdown", paramLabel = "FILE",
            description = "write the Markdown tables (e.g. BENCHMARKS.md), keeping a hand-written part after its marker")
    Path markdown;

    @Option(names = "--enforce-targets", description = "exit 1 when a ratio misses its target")
    boolean enforce;

    @Override
    public Integer call() throws IOException {
        for (String s : suites == null ? List.<String>of() : suites) {
            if (!BenchOptions.SUITES.contains(s)) {
                throw new ParameterException(spec.commandLine(),
                        "unknown suite '" + s + "'; the suites are " + String.join(", ", BenchOptions.SUITES));
            }
        }
        BenchOptions defaults = quick ? BenchOptions.quickMode() : BenchOptions.full();
        BenchOptions options = new BenchOptions(suites == null || suites.isEmpty() ? BenchOptions.SUITES : suites,
                sizes == null || sizes.isEmpty() ? defaults.sizes() : BenchOptions.parseSizes(sizes), quick);
        ProgressBar bar = new ProgressBar(System.err, System.console() != null && System.console().isTerminal());
        Report r = Bench.run(options, bar);
        bar.finish();
        System.out.print(TextReport.render(r));
        if (json != null) {
            write(json, JsonReport.render(r));
        }
        if (markdown != null) {
            String existing = Files.exists(markdown) ? Files.readString(markdown) : null;
            write(markdown, MarkdownReport.merge(MarkdownReport.render(r), existing));
        }
        if (report != null) {
            Files.createDirectories(report);
            write(report.resolve("bench.json"), JsonReport.render(r));
            write(report.resolve("index.html"), HtmlReport.render(r));
            write(report.resolve("BENCHMARKS.md"), MarkdownReport.render(r));
        }
        if (!r.checksPassed()) {
            return 1;
        }
        if (enforce && r.ratios().anyMatch(x -> !x.met())) {
            r.ratios().filter(x -> !x.met()).map(Ratio::name).forEach(n -> System.err.println("below target: " + n));
            return Main.FAILURE;
        }
        return 0;
    }

    private static void write(Path file, String text) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, text);
        System.err.println("wrote " + file);
    }

    /** The suites jkompute-bench has, from its own list, so that help never falls behind the code. */
    static final class SuiteNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return BenchOptions.SUITES.iterator();
        }
    }

    /** A bar redrawn in place on a terminal; one line per step when stderr is a file or a pipe. */
    static final class ProgressBar implements Progress {
        private final PrintStream err;
        private final boolean terminal;
        private boolean drawn;
        private int lastPct;
        private String lastText = "";
        private String withinLabel;
        private long withinStart;
        private long lastLine;

        ProgressBar(PrintStream err, boolean terminal) {
            this.err = err;
            this.terminal = terminal;
        }

        /** A long step's own count and the time it has left, e.g. "throughput check 3,200/10,000 evaluations, 1m20s left". */
        @Override
        public void within(String suite, String label, long done, long total, String unit) {
            long now = System.nanoTime();
            if (!label.equals(withinLabel)) {
                withinLabel = label;
                withinStart = now;
                return;   // the rate is known from the second report on
            }
            if (done <= 0 || total <= 0) {
                return;
            }
            double perUnit = (now - withinStart) / (double) done;
            long leftS = Math.round(perUnit * (total - done) / 1e9);
            String text = String.format(java.util.Locale.ROOT, "%s %,d/%,d %s, %s left", label, done, total, unit,
                    leftS >= 60 ? leftS / 60 + "m" + String.format("%02d", leftS % 60) + "s" : leftS + "s");
            if (terminal) {
                draw(lastPct, text);
            } else if (now - lastLine >= 10_000_000_000L || done >= total) {
                // a pipe or a file: a line every 10 s is enough to see it moving
                lastLine = now;
                err.printf("[%3d%%] %s%n", lastPct, text);
                err.flush();
            }
        }

        private void draw(int pct, String text) {
            int filled = pct * 30 / 100;
            err.print(String.format("\r[%s%s] %3d%% %-70.70s", "#".repeat(filled), ".".repeat(30 - filled), pct, text));
            err.flush();
            drawn = true;
        }

        @Override
        public void step(String suite, String label, int done, int total) {
            int pct = total == 0 ? 100 : done * 100 / total;
            String text = label.isEmpty() ? suite : label;
            lastPct = pct;
            lastText = text;
            if (terminal) {
                draw(pct, text);
            } else if (!label.isEmpty()) {
                err.printf("[%3d%%] %s%n", pct, text);
            }
            err.flush();
        }

        void finish() {
            if (drawn) {
                err.println();
            }
        }
    }
}

package io.jkompute.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs every suite in quick mode on whatever Vulkan device is first (lavapipe in CI) and checks that each one ran its
 * correctness checks, that they passed, that it measured something, and that the reports name the device.
 */
class QuickBenchTest {
    static Report report;

    @BeforeAll
    static void runQuick() {
        report = Bench.run(BenchOptions.quickMode(), Progress.NONE);
    }

    @Test
    void everyCorrectnessCheckPasses() {
        List<String> failed = report.checks().filter(c -> !c.passed()).map(c -> c.suite() + ": " + c.name() + ": " + c.detail())
                .toList();
        assertTrue(failed.isEmpty(), String.join("\n", failed));
        assertTrue(report.checksPassed());
    }

    @Test
    void everySuiteThatCanRunHereCheckedAndMeasured() {
        Map<String, SuiteResult> byName = report.suites().stream().collect(Collectors.toMap(SuiteResult::name, s -> s));
        assertEquals(BenchOptions.SUITES, report.suites().stream().map(SuiteResult::name).toList());
        for (String name : BenchOptions.SUITES) {
            SuiteResult s = byName.get(name);
            if (name.equals("cuda") && !io.jkompute.cuda.Cuda.isAvailable()) {
                // array math needs a CUDA driver (and NVRTC): without one the suite says why and runs nothing
                assertTrue(s.skipped() != null && s.skipped().contains("CUDA"), "cuda: " + s.skipped());
                continue;
            }
            assertNull(s.skipped(), name + " skipped");
            assertFalse(s.checks().isEmpty(), name + " ran no correctness check");
            assertFalse(s.figures().isEmpty(), name + " measured nothing");
            for (Figure f : s.figures()) {
                assertTrue(f.value() > 0 && Double.isFinite(f.value()), f.toString());
            }
        }
        // one jkompute and one raw Vulkan row per quick size and kernel, for each sized suite
        int sizes = BenchOptions.QUICK_SIZES.length;
        assertEquals(sizes, countFigures(byName.get("bandwidth"), "saxpy", "jkompute"));
        assertEquals(sizes, countFigures(byName.get("bandwidth"), "saxpy", "raw Vulkan"));
        assertEquals(sizes, countFigures(byName.get("bandwidth"), "copy", "jkompute OpCopy"));
        assertEquals(sizes, countFigures(byName.get("reduction"), "sum", "raw Vulkan"));
        assertEquals(sizes, countFigures(byName.get("transfers"), "host→device", "jkompute"));
        // BLOCK, SPIN, HYBRID and the two raw Vulkan waits on the default queue family (peers, where a GPU host has
        // CuPy and PyTorch, come on top)
        assertEquals(5, ours(byName.get("latency"))
                .filter(f -> !f.impl().startsWith("raw CUDA") && !f.impl().contains("family") && !f.impl().endsWith("(probe)"))
                .count());
        // below the fence: the submit call alone, the completion word, the word then the fence
        assertEquals(3, byName.get("latency").figures().stream().filter(f -> f.impl().endsWith("(probe)")).count());
        // chains of 10, 100, 1000: jkompute and raw Vulkan each; at 1000 the two barrier probes; the GPU time per node
        // (raw CUDA launches and graphs, on a host with a CUDA driver, come on top)
        assertEquals(9, ours(byName.get("chain")).filter(f -> !f.impl().startsWith("raw CUDA")).count());
        // Kompute's shape: jkompute and raw Vulkan, wall and GPU time
        assertEquals(4, ours(byName.get("throughput")).filter(f -> !f.impl().startsWith("raw CUDA")).count());
        // ping: Greedy at capacities 1 and 64, MultiThread and EventBased with 1, 2, 4 workers on 4 pairs, rate and hop
        // latency each; the scheduler goals (Greedy rate and hop, 2-worker rates) and 2 vs 1, 4 vs 2 workers for each
        assertEquals(16, byName.get("graph").figures().stream().filter(f -> f.metric().startsWith("ping")).count());
        assertEquals(8, byName.get("graph").ratios().stream().filter(r -> r.name().startsWith("ping")).count());
        // the pipeline lock-step and with 2 frames in flight, its limit, and each row against the limit
        assertEquals(3, countFigures(byName.get("graph"), "pipeline", "gpu-pipeline.yaml, lock-step")
                + countFigures(byName.get("graph"), "pipeline", "gpu-pipeline.yaml, 2 frames in flight")
                + countFigures(byName.get("graph"), "pipeline", "transfer-bound limit"));
        assertEquals(2, byName.get("graph").ratios().stream().filter(r -> r.name().startsWith("pipeline")).count());
    }

    /** The figures of jkompute and its Vulkan baselines: not the peers a GPU host may add (CuPy, PyTorch). */
    private static java.util.stream.Stream<Figure> ours(SuiteResult s) {
        return s.figures().stream().filter(f -> !f.impl().startsWith("CuPy") && !f.impl().startsWith("PyTorch"));
    }

    private static long countFigures(SuiteResult s, String metric, String impl) {
        return s.figures().stream().filter(f -> f.metric().equals(metric) && f.impl().equals(impl)).count();
    }

    @Test
    void reportsNameTheDeviceAndHoldEveryFigure(@TempDir Path dir) throws Exception {
        Path json = Bench.writeReports(report, dir);
        String j = Files.readString(json);
        String device = report.environment().device();
        assertFalse(device.isBlank());
        assertTrue(j.contains("\"device\": " + JsonReport.str(device)), j);
        assertTrue(j.contains("\"jdk\": ") && j.contains("\"driver\": ") && j.contains("\"date\": "), j);
        long figures = report.suites().stream().mapToLong(s -> s.figures().size()).sum();
        assertEquals(figures, j.split("\"median\": ", -1).length - 1L);
        String html = Files.readString(dir.resolve("index.html"));
        assertTrue(html.contains("<svg") && html.contains(HtmlReport.esc(device)), "HTML has charts and the device");
        String md = Files.readString(dir.resolve("BENCHMARKS.md"));
        assertTrue(md.contains(device) && md.contains("Reproduce"), md);
        String text = TextReport.render(report);
        assertTrue(text.contains(device) && text.contains("all correctness checks passed"), text);
    }
}

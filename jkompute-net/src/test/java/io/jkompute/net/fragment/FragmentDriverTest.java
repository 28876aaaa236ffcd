package io.jkompute.net.fragment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.StopReason;
import io.jkompute.net.ChildClasses;
import io.jkompute.net.TestPorts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver and its workers as real processes on loopback: the driver runs in the test's JVM and starts a worker
 * JVM per local fragment (or the test starts one as an outside {@code --worker}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FragmentDriverTest {
    @BeforeAll
    static void workers() {
        ChildClasses.startChildrenFromArchive();
    }

    @TempDir
    Path dir;

    static final String SCHED = """
            ---
            name: sched
            components:
            - name: clock
              type: RealtimeClock
            - type: GreedyScheduler
              parameters: { clock: clock, max_duration_ms: 60000, stop_on_deadlock: false }
            """;

    /** A tx/rx pair that runs for a minute unless stopped (a tick every 20 ms; no StepCount to fail then). */
    static String slowPair(String p) {
        return FragmentPlanTest.pair(p, 3000).replace("""
                - name: steps
                  type: JavaCodelet
                  parameters:
                    codelet_name: io.jkompute.graph.std.StepCount
                    codelet_params: { expected_count: 3000 }""", "").replace("""
                - type: CountSchedulingTerm
                  parameters: { count: 3000 }
                - name: ping""", """
                - type: CountSchedulingTerm
                  parameters: { count: 3000 }
                - type: PeriodicSchedulingTerm
                  parameters: { recess_period: 20ms }
                - name: ping""");
    }

    static int freePort() {
        return TestPorts.free();
    }

    record Run(FragmentDriver driver, FragmentDriver.AppResult result, String log) {
    }

    private Path app(String name, String fragments, String body) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, "---\n" + fragments + "\n" + body + SCHED);
        return f;
    }

    private FragmentDriver driver(Path app, int port, List<String> local, ByteArrayOutputStream log) {
        PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8);
        return new FragmentDriver(new FragmentDriver.Options(app, "127.0.0.1", port, local, List.of(), List.of(),
                Duration.ofSeconds(60), false, ps, ps));
    }

    private Run run(Path app, List<String> local) throws IOException {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        FragmentDriver d = driver(app, freePort(), local, log);
        FragmentDriver.AppResult r = d.run();
        return new Run(d, r, log.toString(StandardCharsets.UTF_8));
    }

    @Test
    void twoFragmentsInTwoWorkerJvmsRunToTheEndAsOneApp() throws Exception {
        Path app = app("two.yaml", "fragments: { a: [a_tx, a_rx], b: [b_tx, b_rx] }\nshared: [sched]",
                FragmentPlanTest.pair("a", 5) + FragmentPlanTest.pair("b", 7));
        Run run = run(app, List.of("a", "b"));
        assertTrue(run.result().ok(), run.result().error() + "\n" + run.log());
        assertEquals(StopReason.COMPLETED, run.result().fragment("a").reason());
        assertEquals(StopReason.COMPLETED, run.result().fragment("b").reason());
        // the statistics of both worker JVMs, gathered at the driver as one table
        assertEquals(5, run.result().statistics().entity("a_rx").ticks());
        assertEquals(7, run.result().statistics().entity("b_rx").ticks());
        assertEquals(7, run.result().statistics().entity("b_tx").messagesOut());
        String report = run.result().report();
        assertTrue(report.contains("fragment a ") && report.contains("app completed"), report);
    }

    @Test
    void pingAcrossTwoWorkerJvmsArrivesExactly() throws Exception {
        Run run = run(FragmentPlanTest.APPS.resolve("fragments-ping.yaml"), List.of("tx", "rx"));
        assertTrue(run.result().ok(), run.result().error() + "\n" + run.log());
        assertEquals(StopReason.COMPLETED, run.result().fragment("rx").reason(), run.log());
        assertEquals(100, run.result().statistics().entity("tx").ticks());
        assertEquals(100, run.result().statistics().entity("tx").messagesOut());
        assertEquals(100, run.result().statistics().entity("rx").ticks());
        assertEquals(100, run.result().statistics().entity("rx").messagesIn());
    }

    @Test
    void aFailingFragmentStopsTheOthersAndIsNamed() throws Exception {
        // a's receiver expects 6 ticks but gets 5: StepCount fails in stop(); b would run for a minute
        Path app = app("fail.yaml", "fragments: { a: [a_tx, a_rx], b: [b_tx, b_rx] }\nshared: [sched]",
                FragmentPlanTest.pair("a", 5).replace("expected_count: 5", "expected_count: 6") + slowPair("b"));
        long t0 = System.nanoTime();
        Run run = run(app, List.of("a", "b"));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals(1, run.result().exitCode(), run.log());
        assertTrue(run.result().error().startsWith("fragment 'a' failed"), run.result().error());
        assertTrue(run.result().error().contains("expected 6, ticked 5"), run.result().error());
        assertEquals(StopReason.INTERRUPTED, run.result().fragment("b").reason(), run.log());
        assertTrue(ms < 30_000, "took " + ms + " ms");
    }

    @Test
    void aLoadErrorInOneFragmentNamesItAndTheLine() throws Exception {
        String body = FragmentPlanTest.pair("a", 5) + FragmentPlanTest.pair("b", 7).replace(
                "type: DoubleBufferReceiver", "type: NoSuchReceiver");
        Path app = app("bad.yaml", "fragments: { a: [a_tx, a_rx], b: [b_tx, b_rx] }\nshared: [sched]", body);
        int line = FragmentPlanTest.lineOf(Files.readString(app), "NoSuchReceiver");
        Run run = run(app, List.of("a", "b"));
        assertEquals(2, run.result().exitCode(), run.log());
        assertTrue(run.result().error().startsWith("fragment 'b' failed to load"), run.result().error());
        assertTrue(run.result().error().contains(app + ":" + line), run.result().error());
    }

    @Test
    void aKilledWorkerIsDetectedWithinTwoSecondsAndNothingHangs() throws Exception {
        Path app = app("kill.yaml", "fragments: { a: [a_tx, a_rx], b: [b_tx, b_rx] }\nshared: [sched]",
                slowPair("a") + slowPair("b"));
        int port = freePort();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        FragmentDriver d = driver(app, port, List.of("a"), log);
        CompletableFuture<FragmentDriver.AppResult> result = CompletableFuture.supplyAsync(d::run);
        // b runs in a worker the driver did not start, as on another host
        Process b = new ProcessBuilder(LocalWorkers.command(app, "b", "127.0.0.1:" + port, "127.0.0.1",
                List.of(), List.of())).redirectErrorStream(true).redirectOutput(dir.resolve("b.log").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (d.phase() != FragmentDriver.Phase.RUNNING && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(FragmentDriver.Phase.RUNNING, d.phase(), log.toString(StandardCharsets.UTF_8));
            Thread.sleep(500);
            long killed = System.nanoTime();
            b.destroyForcibly(); // SIGKILL: no goodbye
            FragmentDriver.AppResult r = result.get(30, TimeUnit.SECONDS);
            long returnedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            assertEquals(1, r.exitCode(), log.toString(StandardCharsets.UTF_8));
            assertTrue(r.error().contains("running fragment(s) [b] was lost"), r.error());
            long detected = d.lostDetectedAfterMs();
            assertTrue(detected >= FragmentWorker.LOST_MS && detected < 2000, "detected after " + detected + " ms");
            assertEquals(StopReason.INTERRUPTED, r.fragment("a").reason(), log.toString(StandardCharsets.UTF_8));
            Process a = d.localWorker("a");
            assertNotNull(a);
            assertTrue(a.waitFor(10, TimeUnit.SECONDS), "worker a still running");
            System.out.printf("killed worker: lost after %d ms of silence; driver returned %d ms after the kill%n",
                    detected, returnedMs);
        } finally {
            b.destroyForcibly();
        }
    }
}

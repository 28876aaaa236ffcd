package io.jkompute.bench.internal;

import io.jkompute.bench.Figure;
import io.jkompute.bench.Summary;
import io.jkompute.graph.CodeletStatistics;
import io.jkompute.graph.EntityStatistics;
import io.jkompute.graph.Graph;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The graph suite's Python rows: GXF's Python ping ({@code apps/python/PingTx.py} → {@code PingRx.py}, unchanged,
 * Greedy scheduler) against the same ping with jkompute's Java PingTx/PingRx codelets, in messages/s; and the tick
 * time of an empty Python codelet (CodeletAdapter's own {@code tick}, which does nothing) against an empty Java
 * codelet, p50 of the graph's own per-tick durations (the last {@value io.jkompute.graph.RecentTicks#CAPACITY} ticks
 * of each run). Python is the python3 on PATH or JKOMPUTE_PYTHON; without one the rows are skipped, saying why.
 */
final class PythonPing {
    static final double PING_GOAL = 250_000, EMPTY_TICK_GOAL_NS = 1_000;

    private PythonPing() {
    }

    static int steps() {
        return 2;
    }

    static void run(Context ctx, Recorder out) {
        Path apps = findApps();
        if (apps == null) {
            out.note("not run: Python ping: apps/python/PingTx.py not found from the working directory");
            ctx.step("graph python ping");
            ctx.step("graph python empty tick");
            return;
        }
        int messages = ctx.quick() ? 2_000 : 200_000;
        int runs = ctx.quick() ? 1 : 5;
        Path dir;
        try {
            dir = Files.createTempDirectory("jkompute-python-bench");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String missing = pythonMissing(dir);
        if (missing != null) {
            out.note("not run: Python ping and empty tick: " + missing);
            ctx.step("graph python ping");
            ctx.step("graph python empty tick");
            deleteQuietly(dir);
            return;
        }
        try {
            ping(ctx, out, dir, apps, messages, runs);
            write(dir, "EmptyCodelet.py", "from gxf.python_codelet import CodeletAdapter\n\n\n"
                    + "class EmptyCodelet(CodeletAdapter):\n    pass\n");
            emptyTick(ctx, out, dir, ctx.quick() ? 5_000 : 200_000, runs);
        } finally {
            deleteQuietly(dir);
        }
    }

    private static void ping(Context ctx, Recorder out, Path dir, Path apps, int messages, int runs) {
        for (String impl : new String[] {"Java", "Python"}) {
            String label = impl + " ping, Greedy, capacity 64";
            Path app = write(dir, impl + "-ping.yaml", pingYaml(impl.equals("Python"), apps, messages));
            double[] rates = new double[runs];
            String failure = null;
            try {
                for (int w = 0; w < (runs > 1 ? 2 : 1); w++) {
                    runGraph(app);
                }
                for (int r = 0; r < runs && failure == null; r++) {
                    try (Graph g = Graph.load(app)) {
                        RunResult result = g.run();
                        long got = g.entity("rx").tickCount();
                        failure = result.reason() != StopReason.COMPLETED || got != messages
                                ? "rx ticked " + got + " of " + messages + " (" + result + ")" : null;
                        rates[r] = messages / (result.durationNs() / 1e9);
                    }
                }
            } catch (RuntimeException e) {
                failure = e.getMessage();
            }
            if (out.check(label + ": " + messages + " messages, every one received (PingRx raises on none)", failure)) {
                out.figure("python ping rate", label, 0, "msg/s", Summary.of(rates));
            }
        }
        out.ratio("python ping rate Python / Java", out.find("python ping rate", "Python ping, Greedy, capacity 64", 0),
                out.find("python ping rate", "Java ping, Greedy, capacity 64", 0), 0, true,
                "the Python ping's share of the Java ping's rate");
        Figure g = new Figure("graph", "python ping rate", "goal", 0, "msg/s", Summary.of(new double[] {PING_GOAL}));
        out.ratio("python ping rate Python / goal", out.find("python ping rate", "Python ping, Greedy, capacity 64", 0),
                Optional.of(g), 1.0, true, "goal: 250,000 msg/s");
        ctx.step("graph python ping");
    }

    private static void emptyTick(Context ctx, Recorder out, Path dir, int ticks, int runs) {
        for (String impl : new String[] {"Java", "Python"}) {
            String label = "empty " + impl + " codelet";
            Path app = write(dir, impl + "-empty.yaml", emptyYaml(impl.equals("Python"), dir, ticks));
            double[] p50 = new double[runs];
            String failure = null;
            try {
                runGraph(app);
                for (int r = 0; r < runs && failure == null; r++) {
                    try (Graph g = Graph.load(app)) {
                        g.run();
                        EntityStatistics e = g.statistics().entity("e");
                        CodeletStatistics c = e.codelets().get(0);
                        failure = c.ticks() != ticks ? "ticked " + c.ticks() + " of " + ticks : null;
                        p50[r] = c.recentTicks().quantile(0.5, io.jkompute.graph.RecentTicks.CAPACITY);
                    }
                }
            } catch (RuntimeException e) {
                failure = e.getMessage();
            }
            if (out.check(label + ": " + ticks + " ticks", failure)) {
                out.figure("empty tick p50", label, 0, "ns", Summary.of(p50));
            }
        }
        Figure g = new Figure("graph", "empty tick p50", "goal", 0, "ns",
                Summary.of(new double[] {EMPTY_TICK_GOAL_NS}));
        out.ratio("empty tick p50 Python / goal", out.find("empty tick p50", "empty Python codelet", 0),
                Optional.of(g), 1.0, false, "goal: an empty Python tick ≤ 1 µs p50");
        ctx.step("graph python empty tick");
    }

    /** Why Python codelets cannot run here (no jkompute-python, no python3 or libpython), or null. */
    private static String pythonMissing(Path dir) {
        write(dir, "Probe.py", "from gxf.python_codelet import CodeletAdapter\n\n\n"
                + "class Probe(CodeletAdapter):\n    pass\n");
        Path app = write(dir, "probe.yaml", """
                name: probe
                components:
                - name: py
                  type: PyCodeletV0
                  parameters: { codelet_name: Probe, codelet_file: %s }
                """.formatted(dir.resolve("Probe.py")));
        try (Graph g = Graph.load(app)) {
            return null;
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }

    private static void runGraph(Path app) {
        try (Graph g = Graph.load(app)) {
            g.run();
        }
    }

    private static String pingYaml(boolean python, Path apps, int messages) {
        String tx = python ? """
                - name: ping
                  type: PyCodeletV0
                  parameters: { codelet_name: PingTx, codelet_file: %s, codelet_params: { transmitter: out } }
                """.formatted(apps.resolve("PingTx.py")) : """
                - name: ping
                  type: JavaCodelet
                  parameters: { codelet_name: io.jkompute.graph.std.PingTx, codelet_params: { transmitter: out } }
                """;
        String rx = python ? """
                - name: pong
                  type: PyCodeletV0
                  parameters: { codelet_name: PingRx, codelet_file: %s, codelet_params: { receiver: in, clock: scheduler/clock } }
                """.formatted(apps.resolve("PingRx.py")) : """
                - name: pong
                  type: JavaCodelet
                  parameters: { codelet_name: io.jkompute.graph.std.PingRx, codelet_params: { receiver: in } }
                """;
        return """
                name: tx
                components:
                - name: out
                  type: DoubleBufferTransmitter
                  parameters: { capacity: 64 }
                - type: DownstreamReceptiveSchedulingTerm
                  parameters: { transmitter: out, min_size: 1 }
                - type: CountSchedulingTerm
                  parameters: { count: %d }
                %s---
                name: rx
                components:
                - name: in
                  type: DoubleBufferReceiver
                  parameters: { capacity: 64 }
                - type: MessageAvailableSchedulingTerm
                  parameters: { receiver: in, min_size: 1 }
                %s---
                components:
                - type: Connection
                  parameters: { source: tx/out, target: rx/in }
                ---
                name: scheduler
                components:
                - name: clock
                  type: RealtimeClock
                - type: GreedyScheduler
                  parameters: { clock: clock, stop_on_deadlock: true }
                """.formatted(messages, tx, rx);
    }

    private static String emptyYaml(boolean python, Path dir, int ticks) {
        String codelet = python ? """
                - name: empty
                  type: PyCodeletV0
                  parameters: { codelet_name: EmptyCodelet, codelet_file: %s }
                """.formatted(dir.resolve("EmptyCodelet.py")) : """
                - name: empty
                  type: JavaCodelet
                  parameters: { codelet_name: io.jkompute.bench.internal.EmptyCodelet }
                """;
        return """
                name: e
                components:
                - type: CountSchedulingTerm
                  parameters: { count: %d }
                %s---
                name: scheduler
                components:
                - name: clock
                  type: RealtimeClock
                - type: GreedyScheduler
                  parameters: { clock: clock, stop_on_deadlock: true }
                """.formatted(ticks, codelet);
    }

    private static Path write(Path dir, String name, String text) {
        try {
            return Files.writeString(dir.resolve(name), text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path findApps() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve("apps/python");
            if (Files.isRegularFile(p.resolve("PingTx.py"))) {
                return p;
            }
        }
        return null;
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a temp folder left behind is harmless
        }
    }
}

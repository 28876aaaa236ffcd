package io.jkompute.cli;

import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphExecutionException;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.RunResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jkompute run app.yaml [more.yaml] [--param e/c/p=v] [--manifest file] [--stats stats.json]}: loads a
 * GXF-style graph app, runs it to the end, prints job statistics. Ctrl-C interrupts the graph cleanly.
 */
@Command(name = "run", description = "Run a GXF-style YAML graph app (later files override earlier ones).")
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "APP.yaml", description = "graph files, loaded in order")
    List<Path> files;

    @Option(names = "--param", paramLabel = "ENTITY/COMPONENT/PARAM=VALUE",
            description = "override a parameter (the value is read as YAML); repeatable")
    List<String> params = new ArrayList<>();

    @Option(names = "--manifest", paramLabel = "FILE", description = "YAML 'extensions: [jar, ...]'; repeatable")
    List<Path> manifests = new ArrayList<>();

    @Option(names = "--stats", paramLabel = "FILE", description = "write job statistics as JSON")
    Path stats;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Graph.Loader loader = Graph.loader();
        files.forEach(loader::file);
        manifests.forEach(loader::manifest);
        params.forEach(loader::param);
        Graph graph;
        try {
            graph = loader.load();
        } catch (GraphLoadException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
        Thread onCtrlC = new Thread(() -> {
            // let the graph stop its codelets before the JVM goes
            graph.interrupt();
            try {
                graph.await(5, TimeUnit.SECONDS);
            } catch (RuntimeException | InterruptedException ignored) {
                // not started yet, or it failed: nothing more to wait for
            }
        }, "jkompute-run-interrupt");
        Runtime.getRuntime().addShutdownHook(onCtrlC);
        try (graph) {
            RunResult result;
            try {
                result = graph.run();
            } catch (GraphExecutionException e) {
                err.println("error: " + e.getMessage());
                print(out, graph.statistics().toTable());
                return 1;
            }
            out.println("graph stopped: " + result.reason() + String.format(Locale.ROOT, " after %.3f ms",
                    result.durationNs() / 1e6));
            if (result.detail() != null && !result.detail().isEmpty()) {
                out.println(result.detail());
            }
            print(out, result.statistics().toTable());
            if (stats != null) {
                result.statistics().writeJson(stats);
                out.println("statistics written to " + stats);
            }
            return 0;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(onCtrlC);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is exiting because of Ctrl-C; the hook interrupts the graph
            }
        }
    }

    private static void print(PrintWriter out, String table) {
        out.print(table);
        out.flush();
    }
}

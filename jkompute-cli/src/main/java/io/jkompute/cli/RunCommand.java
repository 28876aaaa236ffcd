package io.jkompute.cli;

import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphExecutionException;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.RunResult;
import io.jkompute.net.NetStatistics;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jkompute run app.yaml [more.yaml] [--param e/c/p=v] [--manifest file] [--stats stats.json]}: loads a
 * GXF-style graph app, runs it to the end, prints job statistics. Ctrl-C interrupts the graph cleanly. An app with
 * a {@code fragments:} document also runs distributed: {@code --driver} / {@code --worker} ({@link DistributedRun}).
 */
@Command(name = "run", description = "Run a GXF-style YAML graph app (later files override earlier ones).",
        footer = {"", "Distributed (an app with a 'fragments:' document):",
            "  run app.yaml --driver [--listen ADDRESS[:PORT]] [--fragments a,b|all|none]",
            "      coordinates the app; starts a worker JVM here for each of --fragments (default all) and waits",
            "      for --worker processes to run the others",
            "  run app.yaml --worker --driver HOST[:PORT] [--fragments a,b] [--worker-address HOST]",
            "      runs fragments for that driver (default port 57777)"})
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "APP.yaml", description = "graph files, loaded in order")
    List<Path> files = new ArrayList<>();

    @Option(names = "--param", paramLabel = "ENTITY/COMPONENT/PARAM=VALUE",
            description = "override a parameter (the value is read as YAML); repeatable")
    List<String> params = new ArrayList<>();

    @Option(names = "--manifest", paramLabel = "FILE", description = "YAML 'extensions: [jar, ...]'; repeatable")
    List<Path> manifests = new ArrayList<>();

    @Option(names = "--stats", paramLabel = "FILE", description = "write job statistics as JSON")
    Path stats;

    @Option(names = "--driver", arity = "0..1", fallbackValue = "", paramLabel = "HOST[:PORT]",
            description = "alone: run as the driver of a fragmented app; with --worker: the driver to join")
    String driver;

    @Option(names = "--worker", description = "run fragments for a driver (--driver HOST[:PORT])")
    boolean worker;

    @Option(names = "--address", paramLabel = "HOST[:PORT]",
            description = "driver: where to listen, as --listen; worker: the driver's address")
    String address;

    @Option(names = "--listen", paramLabel = "ADDRESS[:PORT]",
            description = "driver: the address to listen on (default 127.0.0.1:57777, this host only; "
                    + "0.0.0.0 for every interface)")
    String listen;

    @Option(names = "--worker-address", paramLabel = "HOST",
            description = "worker: the address the driver and the other workers reach this host at")
    String workerAddress;

    @Option(names = {"--fragments", "--fragment"}, paramLabel = "a,b|all|none", split = ",",
            description = "driver: fragments to start worker JVMs for here (default all); worker: fragments to run")
    List<String> fragments;

    @Option(names = "--gpu-fallback",
            description = "driver: a fragment placed on a GPU its host lacks runs on device 0 with a warning")
    boolean gpuFallback;

    @Option(names = "--worker-timeout", paramLabel = "SECONDS", defaultValue = "60",
            description = "driver: how long to wait for workers to register; worker: for the driver (default 60)")
    int workerTimeout;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (driver != null || worker || address != null || listen != null || workerAddress != null || fragments != null
                || gpuFallback) {
            return new DistributedRun(this, out, err).call();
        }
        if (files.isEmpty()) {
            err.println("error: missing APP.yaml (jkompute run APP.yaml [more.yaml])");
            return 2;
        }
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
        // Ctrl-C / SIGTERM: the graph run stops itself first (io.jkompute.Shutdown), then its devices close
        try (graph) {
            RunResult result;
            try {
                result = graph.run();
            } catch (GraphExecutionException e) {
                if (io.jkompute.Shutdown.isStopping()) {
                    // a codelet's stop() may object to a run cut short (too few ticks): that is the stop asked for
                    return StopSignal.report(err);
                }
                err.println("error: " + e.getMessage());
                print(out, graph.statistics().toTable());
                return 1;
            }
            if (io.jkompute.Shutdown.isStopping()) {
                return StopSignal.report(err);
            }
            print(out, result.statistics().toTable());
            out.println(StopSignal.ending(result));
            if (stats != null) {
                // closed first: a UcxTransmitter closes once its receiver confirmed every message, so the links'
                // delivered counts are exact
                graph.close();
                NetStatistics.writeJson(stats, result.statistics(), NetStatistics.links(graph));
                out.println("statistics written to " + stats);
            }
            return 0;
        }
    }

    private static void print(PrintWriter out, String table) {
        out.print(table);
        out.flush();
    }
}

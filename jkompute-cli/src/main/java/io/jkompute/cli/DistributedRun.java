package io.jkompute.cli;

import io.jkompute.net.NetStatistics;
import io.jkompute.net.fragment.FragmentDriver;
import io.jkompute.net.fragment.FragmentPlan;
import io.jkompute.net.fragment.FragmentWorker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code jkompute run app.yaml --driver ...} and {@code --worker ...}: a fragmented app (a {@code fragments:}
 * document) over several processes or hosts, Holoscan's way. Exit codes: 0 every fragment ran to its end; 1 a
 * fragment failed or a worker was lost (the error names it); 2 a usage or load error; 3 no driver / no workers.
 */
final class DistributedRun {
    private final RunCommand c;
    private final PrintWriter out;
    private final PrintWriter err;

    DistributedRun(RunCommand command, PrintWriter out, PrintWriter err) {
        this.c = command;
        this.out = out;
        this.err = err;
    }

    int call() throws IOException {
        List<Path> files = new ArrayList<>(c.files);
        boolean driverMode = !c.worker && c.driver != null;
        String driverAddress = c.driver;
        if (driverMode && !driverAddress.isEmpty() && isAppFile(driverAddress)) {
            // "--driver app.yaml": picocli gave the app to --driver's optional value
            files.add(0, Path.of(driverAddress));
            driverAddress = "";
        }
        if (!driverMode && !c.worker) {
            return usage("--address, --listen, --worker-address, --fragments and --gpu-fallback go with --driver or "
                    + "--worker");
        }
        if (files.size() != 1) {
            return usage("a distributed run takes one app file (with a 'fragments:' document), got " + files);
        }
        Path app = files.get(0);
        if (!Files.isRegularFile(app)) {
            return usage("no app file " + app);
        }
        if (!FragmentPlan.hasFragments(app)) {
            return usage(app + " has no 'fragments:' document; --driver and --worker run fragmented apps "
                    + "(see apps/distributed/fragments-ping.yaml)");
        }
        PrintStream errStream = new PrintStream(new WriterStream(err), true, StandardCharsets.UTF_8);
        PrintStream outStream = new PrintStream(new WriterStream(out), true, StandardCharsets.UTF_8);
        if (c.worker) {
            if (c.listen != null) {
                return usage("--listen is for --driver; a worker names the driver with --driver HOST[:PORT]");
            }
            String target = driverAddress != null && !driverAddress.isEmpty() ? driverAddress : c.address;
            if (target == null || target.isEmpty()) {
                return usage("--worker needs the driver's address: --driver HOST[:PORT] (or --address HOST[:PORT])");
            }
            if (c.gpuFallback) {
                return usage("--gpu-fallback is the driver's choice; pass it to the driver");
            }
            List<String> wanted = c.fragments == null || c.fragments.equals(List.of("all")) ? List.of() : c.fragments;
            return new FragmentWorker(new FragmentWorker.Options(app, wanted, target, c.workerAddress, c.manifests,
                    c.params, Duration.ofSeconds(c.workerTimeout), outStream, errStream)).run();
        }
        if (c.workerAddress != null) {
            return usage("--worker-address is for --worker");
        }

        // nothing listens beyond this host unless the user names an address
        String bind = "127.0.0.1";
        int port = FragmentWorker.DEFAULT_DRIVER_PORT;
        String listen = c.listen != null ? c.listen : driverAddress.isEmpty() ? c.address : driverAddress;
        if (listen != null && !listen.isEmpty()) {
            int colon = listen.lastIndexOf(':');
            try {
                if (colon >= 0) {
                    port = Integer.parseInt(listen.substring(colon + 1));
                    bind = colon == 0 ? bind : listen.substring(0, colon);
                } else {
                    bind = listen;
                }
            } catch (NumberFormatException e) {
                return usage("--listen must be ADDRESS[:PORT], got " + listen);
            }
        }
        FragmentPlan plan;
        try {
            plan = FragmentPlan.read(app);
        } catch (RuntimeException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
        List<String> local;
        if (c.fragments == null || c.fragments.equals(List.of("all"))) {
            local = plan.fragmentNames();
        } else if (c.fragments.equals(List.of("none"))) {
            local = List.of();
        } else {
            for (String f : c.fragments) {
                if (!plan.fragmentNames().contains(f)) {
                    return usage("no fragment '" + f + "' in " + app + " (fragments: " + plan.fragmentNames() + ")");
                }
            }
            local = c.fragments;
        }
        if (local.size() < plan.fragmentNames().size()) {
            List<String> rest = plan.fragmentNames().stream().filter(f -> !local.contains(f)).toList();
            err.println("driver: listening on " + bind + ":" + port + "; fragment(s) " + rest + " wait for "
                    + "'jkompute run " + app + " --worker --fragments NAME --driver THIS_HOST:" + port + "'");
            err.flush();
        }
        FragmentDriver driver = new FragmentDriver(new FragmentDriver.Options(app, bind, port, local,
                c.manifests, c.params, Duration.ofSeconds(c.workerTimeout), c.gpuFallback, outStream, errStream));
        FragmentDriver.AppResult r = driver.run();
        out.print(r.report());
        out.flush();
        if (!r.ok()) {
            err.println("error: " + r.error());
            err.flush();
        }
        if (c.stats != null && r.statistics() != null) {
            NetStatistics.writeJson(c.stats, r.statistics(), driver.links());
            out.println("statistics written to " + c.stats);
        }
        return r.exitCode();
    }

    private static boolean isAppFile(String s) {
        return s.endsWith(".yaml") || s.endsWith(".yml") || Files.isRegularFile(Path.of(s));
    }

    private int usage(String message) {
        err.println("error: " + message);
        err.flush();
        return 2;
    }

    /** A PrintStream over the command's PrintWriter (the driver and worker write to streams). */
    private static final class WriterStream extends OutputStream {
        private final PrintWriter w;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        WriterStream(PrintWriter w) {
            this.w = w;
        }

        @Override
        public synchronized void write(int b) {
            line.write(b);
            if (b == '\n') {
                flush();
            }
        }

        @Override
        public synchronized void flush() {
            w.print(line.toString(StandardCharsets.UTF_8));
            w.flush();
            line.reset();
        }
    }
}

package io.jkompute.net.fragment;

import io.jkompute.net.NetSecret;
import io.jkompute.net.internal.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The worker JVMs a driver starts for its local fragments: started with the driver's own java and options, the
 * network secret in their environment (never on their command line), their output echoed with the fragment's name
 * and its last lines kept for an error; reaped (or killed) when the app ends.
 */
final class LocalWorkers {
    /** One started worker and the tail of its output. */
    static final class Child {
        private final String fragment;
        private final Process process;
        private final Deque<String> tail = new ArrayDeque<>();

        Child(String fragment, Process process) {
            this.fragment = fragment;
            this.process = process;
        }

        String fragment() {
            return fragment;
        }

        Process process() {
            return process;
        }

        synchronized void line(String l) {
            tail.add(l);
            if (tail.size() > 20) {
                tail.removeFirst();
            }
        }

        synchronized String lastLines() {
            return String.join("\n", tail);
        }
    }

    /** The main class of a worker JVM. */
    private static final String WORKER_MAIN = FragmentWorker.class.getName();

    private final Path app;
    private final List<Path> manifests;
    private final List<String> params;
    private final PrintStream err;
    private final Map<String, Child> children = new LinkedHashMap<>();

    LocalWorkers(Path app, List<Path> manifests, List<String> params, PrintStream err) {
        this.app = app;
        this.manifests = manifests;
        this.params = params;
        this.err = err;
    }

    /** Starts the worker for {@code fragment}, which registers with the driver at {@code driverEndpoint}. */
    synchronized void start(String fragment, String driverEndpoint) throws IOException {
        List<String> cmd = command(app, fragment, driverEndpoint, "127.0.0.1", manifests, params);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        // the secret goes through the environment (private to this user), never the command line
        pb.environment().put(NetSecret.ENV, NetSecret.get().text());
        Process p = pb.start();
        Child c = new Child(fragment, p);
        children.put(fragment, c);
        Thread.ofPlatform().daemon().name("jkompute-worker-" + fragment + "-output").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    c.line(line);
                    err.println("[" + fragment + "] " + line);
                }
            } catch (IOException ignored) {
                // the worker is gone
            }
        });
    }

    synchronized Process process(String fragment) {
        Child c = children.get(fragment);
        return c == null ? null : c.process();
    }

    synchronized Collection<Child> children() {
        return List.copyOf(children.values());
    }

    /** Waits (5 s in all) for the workers to exit, then kills what is left. */
    void reap() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (Child c : children()) {
            try {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !c.process().waitFor(left, TimeUnit.NANOSECONDS)) {
                    c.process().destroyForcibly();
                    c.process().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                c.process().destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The command that starts a worker JVM for {@code fragment}: this JVM's java, options and class path (or
     * module path). The network secret is not on it: a worker gets it through its environment.
     */
    static List<String> command(Path app, String fragment, String driverEndpoint, String workerAddress,
                                List<Path> manifests, List<String> params) {
        List<String> cmd = ChildJvm.javaAndOptions();
        String modulePath = System.getProperty("jdk.module.path");
        if (modulePath != null && !modulePath.isEmpty()) {
            cmd.addAll(List.of("-p", modulePath, "-m", "io.jkompute.net/" + WORKER_MAIN));
        } else {
            cmd.addAll(List.of("-cp", ChildJvm.classPath(), WORKER_MAIN));
        }
        cmd.addAll(List.of("--app", app.toString(), "--fragments", fragment, "--driver", driverEndpoint,
                "--worker-address", workerAddress));
        for (Path m : manifests) {
            cmd.addAll(List.of("--manifest", m.toString()));
        }
        for (String p : params) {
            cmd.addAll(List.of("--param", p));
        }
        return cmd;
    }

    /** Kills every worker now (the driver's JVM is exiting). */
    void kill() {
        for (Child c : children()) {
            c.process().destroyForcibly();
        }
    }
}

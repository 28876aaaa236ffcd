package io.jkompute.net;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A child JVM running {@link RunGraph} (or another main) for the multi-process tests; output captured. */
final class Jvm implements AutoCloseable {
    final String name;
    final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private Jvm(String name, Process p) {
        this.name = name;
        this.process = p;
        reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    synchronized (lines) {
                        lines.add(l);
                        lines.notifyAll();
                    }
                }
            } catch (IOException e) {
                // process gone
            }
        }, "jvm-output " + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * A test file named relative to the module: as given under Maven (the module is the working directory), else
     * under {@code jkompute-net/} (the GPU host runs every module's tests in one JVM from the repository root).
     */
    static String file(String moduleRelative) {
        Path inModule = Path.of(moduleRelative);
        return (Files.exists(inModule) ? inModule : Path.of("jkompute-net").resolve(moduleRelative).normalize())
                .toString();
    }

    static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    /**
     * The link timeout of the children (the product's default is 1.5 s): a test of what arrives must not fail because
     * another process on a loaded machine kept a child off the CPU for a second and a half. The tests of how fast a
     * lost peer is found start their children with the product's timeout ({@link #timed}).
     */
    static final long LINK_TIMEOUT_MS = 15_000;

    /** Starts {@code main} with {@code args} in a new JVM with Aeron's flags. */
    static Jvm start(String name, List<String> jvmArgs, String main, String... args) {
        ChildClasses classes = ChildClasses.get();
        List<String> flags = new ArrayList<>(classes.flags);
        flags.add("-Djkompute.net.timeoutMs=" + LINK_TIMEOUT_MS);
        flags.addAll(jvmArgs); // after the default: a test's own -Djkompute.net.timeoutMs wins
        return launch(name, classes.classPath, flags, main, args);
    }

    /**
     * Starts {@code main} on {@code classPath} with Aeron's flags, the JIT tier limit and {@code jvmArgs}, through
     * {@link ChildMain}, so that the child does not outlive this JVM.
     */
    static Jvm launch(String name, String classPath, List<String> jvmArgs, String main, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "-Xmx512m", "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        cmd.addAll(jitFlags());
        cmd.addAll(jvmArgs);
        cmd.add("-D" + ChildMain.PARENT_PID + "=" + ProcessHandle.current().pid());
        cmd.addAll(List.of("-cp", classPath, ChildMain.class.getName(), main));
        cmd.addAll(List.of(args));
        try {
            return new Jvm(name, new ProcessBuilder(cmd).redirectErrorStream(true).start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The test JVM's JIT tier limit, passed on: a child runs as short as the test JVM (see the parent POM). */
    static List<String> jitFlags() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-XX:TieredStopAtLevel=")).toList();
    }

    static Jvm graph(String name, String... args) {
        return start(name, List.of(), RunGraph.class.getName(), args);
    }

    /** As {@link #graph}, with the product's link timeout (1.5 s): for tests of how a lost or hung peer is found. */
    static Jvm timed(String name, String... args) {
        return start(name, List.of("-Djkompute.net.timeoutMs=1500"), RunGraph.class.getName(), args);
    }

    /** Waits for the process to end; returns its exit status (or fails the test after {@code seconds}). */
    int await(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            dumpThreads();
            process.destroyForcibly();
            throw new AssertionError(name + " did not end within " + seconds + " s; output (with its threads):\n"
                    + output());
        }
        reader.join(5000);
        assertNoAeronDirectory();
        return process.exitValue();
    }

    /** A stuck child prints its threads (SIGQUIT) into its output, which the failure then carries. */
    private void dumpThreads() throws InterruptedException {
        try {
            new ProcessBuilder("kill", "-QUIT", Long.toString(process.pid())).start().waitFor(5, TimeUnit.SECONDS);
            Thread.sleep(1000);
        } catch (IOException e) {
            // no kill command: the failure has the output without threads
        }
    }

    /** Every exit path of a child removes its private Aeron folder. */
    void assertNoAeronDirectory() {
        for (Path root : List.of(Path.of("/dev/shm"), Path.of(System.getProperty("java.io.tmpdir")))) {
            Path d = root.resolve("jkompute-aeron-" + process.pid());
            if (Files.exists(d)) {
                throw new AssertionError(name + " (pid " + process.pid() + ") left " + d + " behind; output:\n"
                        + output());
            }
        }
    }

    /** Waits until a line starting with {@code prefix} appeared; returns it. */
    String awaitLine(String prefix, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (lines) {
            while (true) {
                for (String l : lines) {
                    if (l.startsWith(prefix)) {
                        return l;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
                    throw new AssertionError(name + ": no line '" + prefix + "…' within " + seconds + " s; output:\n"
                            + output());
                }
                lines.wait(Math.max(1, Math.min(200, left / 1_000_000)));
            }
        }
    }

    /** Lines that start with {@code prefix}. */
    List<String> lines(String prefix) {
        synchronized (lines) {
            return lines.stream().filter(l -> l.startsWith(prefix)).toList();
        }
    }

    /** The output of {@code first}, then of each peer under its name: a failed link shows both ends. */
    static String outputs(Jvm first, Jvm... peers) {
        StringBuilder sb = new StringBuilder(first.output());
        for (Jvm p : peers) {
            sb.append("\n--- ").append(p.name).append(p.process.isAlive() ? " (running)" : " (exit "
                    + p.process.exitValue() + ")").append(":\n").append(p.output());
        }
        return sb.toString();
    }

    String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
        try {
            if (process.waitFor(10, TimeUnit.SECONDS)) {
                // a killed process cannot clean up: the next transport start removes its folder (as here)
                AeronTransport.removeStale();
                assertNoAeronDirectory();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A UDP port free right now, for one test (see {@link TestPorts}). */
    static int freePort() {
        return TestPorts.free();
    }
}

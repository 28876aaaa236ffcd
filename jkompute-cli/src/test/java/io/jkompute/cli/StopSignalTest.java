package io.jkompute.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ctrl-C and SIGTERM in the middle of real work: {@code jkompute run apps/gpu-pipeline.yaml} with 100,000 frames and
 * {@code jkompute bench} (the throughput suite, where the old shutdown hook crashed the driver) in a child JVM, a
 * signal once the GPU is busy, then: exit 130 (SIGINT) or 143 (SIGTERM), no {@code hs_err} file, no crash text. One
 * run each here; {@code jkompute-cli/stop-soak.sh} repeats every combination many times.
 */
class StopSignalTest {
    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("INT", 130, List.of("run", "APPS/gpu-pipeline.yaml", "--param", "source/count/count=100000",
                        "--param", "verify/steps/codelet_params={expected_count: 100000}")),
                Arguments.of("TERM", 143, List.of("bench", "--suite=throughput")));
    }

    @ParameterizedTest(name = "SIG{0} during {2}")
    @MethodSource("cases")
    void aSignalStopsTheWorkCleanly(String signal, int expectedExit, List<String> args) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/env")) && Files.isExecutable(Path.of("/bin/kill")),
                "needs /usr/bin/env and /bin/kill to send signals to the child JVM");
        Path apps = DistributedRunTest.MODULE.resolve("../apps").toAbsolutePath().normalize();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        // env --default-signal: a JVM started with SIGINT ignored (a background job of a non-interactive shell, as
        // CI runs Maven) installs no handler for it; the child must see the signal as a terminal would deliver it
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/env", "--default-signal=INT,TERM",
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "-Xmx512m",
                // the device line (DEBUG) says the GPU is in use: the signal comes while work is submitted
                "-Djkompute.log.level=DEBUG", "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug",
                "-cp", cp, "io.jkompute.cli.Main"));
        for (String a : args) {
            cmd.add(a.replace("APPS", apps.toString()));
        }
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        // the child's working folder is empty: an hs_err_pid*.log would land here
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!Files.readString(err).contains("queue(s) on famil") && p.isAlive()
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(p.isAlive(), () -> "ended before the signal:\n" + output(out, err));
            Thread.sleep(1500);   // into the work: graph ticks, or the throughput loop's submissions
            assertTrue(p.isAlive(), () -> "ended before the signal:\n" + output(out, err));
            new ProcessBuilder("/bin/kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                // a stuck stop: its thread dump (SIGQUIT prints it to stdout) goes into the failure message
                new ProcessBuilder("/bin/kill", "-QUIT", Long.toString(p.pid())).start().waitFor();
                Thread.sleep(1000);
                throw new AssertionError("still running 60 s after SIG" + signal + "\n" + output(out, err));
            }
            String all = output(out, err);
            try (Stream<Path> files = Files.list(dir)) {
                List<String> crashLogs = files.map(f -> f.getFileName().toString())
                        .filter(f -> f.startsWith("hs_err")).toList();
                assertEquals(List.of(), crashLogs, () -> "the JVM crashed:\n" + all);
            }
            for (String crash : List.of("SIGSEGV", "A fatal error", "hs_err", "Exception in thread", "core dump")) {
                assertTrue(!all.contains(crash), () -> "crash text '" + crash + "' in the output:\n" + all);
            }
            assertEquals(expectedExit, p.exitValue(), () -> "exit status after SIG" + signal + ":\n" + all);
        } finally {
            p.destroyForcibly();
        }
    }

    private static String output(Path out, Path err) {
        try {
            return "--- stdout\n" + Files.readString(out) + "\n--- stderr\n" + Files.readString(err);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

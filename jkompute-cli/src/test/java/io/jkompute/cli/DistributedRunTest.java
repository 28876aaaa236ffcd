package io.jkompute.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.DatagramSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code jkompute run … --driver / --worker} as a user runs it: {@code io.jkompute.cli.Main} in its own JVM on the
 * class path the launcher builds (this module's runtime dependencies) with the launcher's JVM flags; the driver then
 * starts its worker JVMs itself. Exit codes as DistributedRun defines them: 0 done, 1 a fragment failed, 2 usage or
 * load error, 3 no driver / no workers.
 */
class DistributedRunTest {
    static final String PING = "../apps/distributed/fragments-ping.yaml";

    @TempDir
    Path dir;

    record Result(int code, List<String> out, List<String> err) {
        String all() {
            return "exit " + code + "\n--- stdout\n" + String.join("\n", out) + "\n--- stderr\n"
                    + String.join("\n", err);
        }
    }

    static int freePort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * The app paths here are relative to this module: its folder under Maven, {@code jkompute-cli} when the GPU host
     * runs every module's tests in one JVM from the repository root.
     */
    static final Path MODULE = Files.isDirectory(Path.of("../apps")) ? Path.of(".") : Path.of("jkompute-cli");

    /** Runs {@code jkompute ARGS} in a new JVM; kills it (and what it started) after {@code seconds}. */
    Result jkompute(long seconds, String... args) throws Exception {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                // the launcher's flags (./jkompute): Aeron reaches into the JDK for its fast paths
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "-Xmx256m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        // the test JVM's JIT tier limit (see the parent POM): the CLI and the workers it starts run as short
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-XX:TieredStopAtLevel=")).forEach(cmd::add);
        cmd.addAll(List.of("-cp", cp, "io.jkompute.cli.Main"));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(cmd).directory(MODULE.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        try {
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                // a stuck JVM (and the workers it started) prints its threads on SIGQUIT: into the failure message
                List<String> pids = new ArrayList<>(List.of(Long.toString(p.pid())));
                p.descendants().forEach(d -> pids.add(Long.toString(d.pid())));
                List<String> quit = new ArrayList<>(List.of("/bin/kill", "-QUIT"));
                quit.addAll(pids);
                new ProcessBuilder(quit).start().waitFor();
                Thread.sleep(1000);
                throw new AssertionError("jkompute " + String.join(" ", args) + " still running after " + seconds
                        + " s\n" + Files.readString(out) + Files.readString(err));
            }
            return new Result(p.exitValue(), Files.readAllLines(out, StandardCharsets.UTF_8),
                    Files.readAllLines(err, StandardCharsets.UTF_8));
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    @Test
    void driverRunsFragmentsPingEndToEndAsOneApp() throws Exception {
        Path stats = dir.resolve("stats.json");
        Result r = jkompute(180, "run", PING, "--driver", "127.0.0.1:" + freePort(), "--stats", stats.toString());
        assertEquals(0, r.code(), r.all());
        // both ends of the one link, as the workers reported them after closing: exact counts and bytes
        assertEquals(List.of(
                        "{\"fragment\": \"tx\", \"component\": \"tx/out\", \"type\": \"UcxTransmitter\", \"link\": \"…\", "
                                + "\"sent\": 100, \"delivered\": 100, \"dropped\": 0, \"bytes\": 5300, \"rejected\": 0}",
                        "{\"fragment\": \"rx\", \"component\": \"rx/in\", \"type\": \"UcxReceiver\", \"link\": \"…\", "
                                + "\"sent\": 100, \"delivered\": 100, \"dropped\": 0, \"bytes\": 5300, \"rejected\": 0}"),
                links(stats), Files.readString(stats));
        List<String> fragments = r.out().stream().filter(l -> l.startsWith("fragment ")).toList();
        assertEquals(2, fragments.size(), r.all());
        assertTrue(fragments.get(0).matches("fragment tx +on 127\\.0\\.0\\.1:\\d+/pid \\d+ +COMPLETED after .* ms"),
                r.all());
        assertTrue(fragments.get(1).matches("fragment rx +on 127\\.0\\.0\\.1:\\d+/pid \\d+ +COMPLETED after .* ms"),
                r.all());
        assertTrue(r.out().stream().anyMatch(l -> l.startsWith("app completed after ")), r.all());
        // the statistics of both worker JVMs in one table: ticks, messages in, messages out
        assertTrue(r.out().stream().anyMatch(l -> l.matches("tx +100 +\\S+ +\\S+ +\\S+ +0 +100 +\\S+")), r.all());
        assertTrue(r.out().stream().anyMatch(l -> l.matches("rx +100 +\\S+ +\\S+ +\\S+ +100 +0 +\\S+")), r.all());
        assertTrue(r.err().stream().anyMatch(
                l -> l.matches("driver: worker 127\\.0\\.0\\.1:\\d+/pid \\d+ runs fragment\\(s\\) \\[tx\\]")), r.all());
        assertTrue(r.err().stream().noneMatch(l -> l.startsWith("error")), r.all());
    }

    @Test
    void aFailingFragmentExitsOneNamingIt() throws Exception {
        Result r = jkompute(180, "run", PING, "--driver", "127.0.0.1:" + freePort(),
                "--param", "rx/steps/codelet_params={expected_count: 101}");
        assertEquals(1, r.code(), r.all());
        String error = r.err().stream().filter(l -> l.startsWith("error: ")).findFirst().orElseThrow();
        assertTrue(error.startsWith("error: fragment 'rx' failed (worker 127.0.0.1:"), error);
        assertTrue(error.contains("expected 101, ticked 100"), error);
    }

    /** The "links" entries of a --stats file, one per line, with the link's description (addresses) cut out. */
    static List<String> links(Path stats) throws IOException {
        List<String> lines = Files.readAllLines(stats);
        int start = lines.indexOf("  \"links\": [");
        assertTrue(start > 0, String.join("\n", lines));
        List<String> out = new ArrayList<>();
        for (int i = start + 1; !lines.get(i).trim().equals("]"); i++) {
            out.add(lines.get(i).trim().replaceAll(",$", "").replaceAll("\"link\": \"[^\"]*\"", "\"link\": \"…\""));
        }
        return out;
    }

    @Test
    void statsOfTwoSingleProcessRunsHaveTheirLinkWithExactCounts() throws Exception {
        Path txStats = dir.resolve("tx.json");
        Path rxStats = dir.resolve("rx.json");
        String port = "--param=tx/signal/port=" + freePort();
        Result[] rxResult = new Result[1];
        Throwable[] rxError = new Throwable[1];
        Thread rx = Thread.ofPlatform().start(() -> {
            try {
                rxResult[0] = jkompute(180, "run", "../apps/distributed/ping-rx.yaml",
                        port.replace("tx/signal", "rx/signal"), "--stats", rxStats.toString());
            } catch (Throwable t) {
                rxError[0] = t;
            }
        });
        Result tx = jkompute(180, "run", "../apps/distributed/ping-tx.yaml", port, "--stats", txStats.toString());
        rx.join(200_000);
        assertEquals(null, rxError[0]);
        assertEquals(0, tx.code(), tx.all());
        assertEquals(0, rxResult[0].code(), rxResult[0].all());
        assertEquals(List.of("{\"component\": \"tx/signal\", \"type\": \"UcxTransmitter\", \"link\": \"…\", "
                + "\"sent\": 100, \"delivered\": 100, \"dropped\": 0, \"bytes\": 5300, \"rejected\": 0}"), links(txStats));
        assertEquals(List.of("{\"component\": \"rx/signal\", \"type\": \"UcxReceiver\", \"link\": \"…\", "
                + "\"sent\": 100, \"delivered\": 100, \"dropped\": 0, \"bytes\": 5300, \"rejected\": 0}"), links(rxStats));
    }

    static Stream<Arguments> badFlags() {
        return Stream.of(
                Arguments.of(List.of("run", PING, "--driver", "--worker-address", "10.0.0.1"),
                        "error: --worker-address is for --worker"),
                Arguments.of(List.of("run", "../apps/ping.yaml", "--driver"),
                        "error: ../apps/ping.yaml has no 'fragments:' document; --driver and --worker run fragmented"
                                + " apps (see apps/distributed/fragments-ping.yaml)"),
                Arguments.of(List.of("run", PING, "--driver", "--fragments", "nope"),
                        "error: no fragment 'nope' in " + PING + " (fragments: [tx, rx])"),
                Arguments.of(List.of("run", PING, "--worker"),
                        "error: --worker needs the driver's address: --driver HOST[:PORT] (or --address HOST[:PORT])"),
                Arguments.of(List.of("run", PING, "--worker", "--driver", "127.0.0.1:57777", "--gpu-fallback"),
                        "error: --gpu-fallback is the driver's choice; pass it to the driver"),
                Arguments.of(List.of("run", PING, "--driver", "--address", "127.0.0.1:xyz"),
                        "error: --listen must be ADDRESS[:PORT], got 127.0.0.1:xyz"),
                Arguments.of(List.of("run", PING, "--driver", "--listen", "127.0.0.1:xyz"),
                        "error: --listen must be ADDRESS[:PORT], got 127.0.0.1:xyz"),
                Arguments.of(List.of("run", PING, "--worker", "--driver", "127.0.0.1:57777", "--listen", "0.0.0.0"),
                        "error: --listen is for --driver; a worker names the driver with --driver HOST[:PORT]"),
                Arguments.of(List.of("run", PING, PING, "--driver"),
                        "error: a distributed run takes one app file (with a 'fragments:' document), got [" + PING
                                + ", " + PING + "]"),
                Arguments.of(List.of("run", "../apps/distributed/no-such-app.yaml", "--driver"),
                        "error: no app file ../apps/distributed/no-such-app.yaml"),
                Arguments.of(List.of("run", PING, "--address", "127.0.0.1"),
                        "error: --address, --listen, --worker-address, --fragments and --gpu-fallback go with "
                                + "--driver or --worker"));
    }

    @ParameterizedTest
    @MethodSource("badFlags")
    void badFlagsExitTwoWithTheExactMessage(List<String> args, String message) throws Exception {
        Result r = jkompute(60, args.toArray(String[]::new));
        assertEquals(2, r.code(), r.all());
        assertEquals(List.of(message), r.err(), r.all());
        assertEquals(List.of(), r.out(), r.all());
    }

    @Test
    void aDriverWithoutWorkersExitsThree() throws Exception {
        int port = freePort();
        Result r = jkompute(120, "run", PING, "--driver", "127.0.0.1:" + port, "--fragments", "none",
                "--worker-timeout", "1");
        assertEquals(3, r.code(), r.all());
        assertTrue(r.err().contains("error: no worker registered for fragment(s) [tx, rx] within 1 s (start them with:"
                + " jkompute run " + PING + " --worker --fragments NAME --driver HOST:" + port + ")"), r.all());
    }

    @Test
    void aWorkerWithoutDriverExitsThree() throws Exception {
        int port = freePort();
        Result r = jkompute(120, "run", PING, "--worker", "--driver", "127.0.0.1:" + port, "--worker-timeout", "1");
        assertEquals(3, r.code(), r.all());
        assertTrue(r.err().contains("error: no driver at 127.0.0.1:" + port + " after 1 s"), r.all());
    }
}

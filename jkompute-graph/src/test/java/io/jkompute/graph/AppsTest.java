package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.Manager;
import io.jkompute.graph.std.BlockMemoryPool;
import io.jkompute.graph.std.PingRx;
import io.jkompute.graph.std.VerifyEqual;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import io.jkompute.graph.testing.CorruptScale;
import io.jkompute.graph.testing.OrderedVerify;

/** The example apps in apps/ run as shipped. */
class AppsTest {

    @Test
    void ping() {
        try (Graph g = Graph.load(Graphs.APPS.resolve("ping.yaml"))) {
            RunResult r = g.run();
            assertEquals(10, g.entity("tx").tickCount());
            assertEquals(10, Graphs.codelet(g, "rx/pong", PingRx.class).received());
            assertEquals(StopReason.COMPLETED, r.reason());
        }
    }

    @Test
    void broadcast() {
        try (Graph g = Graph.load(Graphs.APPS.resolve("broadcast.yaml"))) {
            g.run();
            for (String rx : List.of("rx1", "rx2", "rx3")) {
                assertEquals(100, Graphs.codelet(g, rx + "/pong", PingRx.class).received(), rx);
            }
        }
    }

    @Test
    void pingBroadcastWithJobStatistics(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("stats.json");
        try (Graph g = Graph.loader().file(Graphs.APPS.resolve("ping-broadcast.yaml"))
                .param("scheduler/stats/json_file_path=" + json).load()) {
            g.run();
            assertEquals(100, g.entity("broadcast").tickCount());
            for (String rx : List.of("rx1", "rx2", "rx3")) {
                assertEquals(100, Graphs.codelet(g, rx + "/pong", PingRx.class).received(), rx);
            }
        }
        // GXF's JobStatistics layout, written when the run ends
        String text = Files.readString(json);
        assertTrue(text.contains("{\"name\": \"tx\", \"count\": 100,"), text);
        assertTrue(text.contains("{\"name\": \"broadcast\", \"count\": 100,"), text);
    }

    @Test
    void gatherFansTwoSourcesIn() {
        try (Graph g = Graph.load(Graphs.APPS.resolve("gather.yaml"))) {
            g.run();
            assertEquals(50, g.entity("forward_a").tickCount());
            assertEquals(50, g.entity("forward_b").tickCount());
            assertEquals(100, Graphs.codelet(g, "rx/pong", PingRx.class).received());
        }
    }

    @Test
    void periodicPingOnAManualClock(@TempDir Path dir) throws Exception {
        try (Graph g = Graph.load(Graphs.APPS.resolve("periodic-ping.yaml"))) {
            long t0 = System.nanoTime();
            RunResult r = g.run();
            assertTrue(System.nanoTime() - t0 < 2_000_000_000L, "time-compressed: no real sleeping");
            assertEquals(45_000, g.clock().timestamp());
            assertEquals(10, g.entity("rx").tickCount());
            Path json = dir.resolve("stats.json");
            r.statistics().writeJson(json);
            String text = Files.readString(json);
            assertTrue(text.contains("{\"name\": \"tx\", \"ticks\": 10,"), text);
            assertTrue(text.contains("\"messages_out\": 10"), text);
            assertTrue(text.contains("{\"name\": \"pong\", \"type\": \"JavaCodelet\", \"ticks\": 10,"), text);
            assertTrue(r.statistics().toTable().lines().anyMatch(l -> l.startsWith("rx ") && l.contains(" 10 ")));
        }
    }

    /** The pipeline app as shipped, with frames_in_flight and the result pools' size set. */
    static Graph pipeline(int frames, int inFlight, String... overrides) {
        int blocks = Math.max(8, inFlight + 4);
        Graph.Loader l = Graph.loader().file(Graphs.APPS.resolve("gpu-pipeline.yaml"))
                .param("source/count/count=" + frames)
                .param("verify/steps/codelet_params={expected_count: " + frames + "}")
                .param("verify/equal/codelet_params={receiver0: cpu_in, receiver1: gpu_in, frames_in_flight: " + inFlight + "}")
                .param("kernel/result_pool/num_blocks=" + blocks).param("cpu/result_pool/num_blocks=" + blocks);
        for (String o : overrides) {
            l.param(o);
        }
        return l.load();
    }

    /**
     * Lock-step (0) and 1, 2, 8 frames in flight: exactly 40 frames, each compared with the CPU reference and with
     * StreamGenerator's frame of the same number, in order; every pool block back at the end.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 8})
    void gpuPipelineMatchesTheCpuReference(int inFlight) {
        Assumptions.assumeTrue(vulkanAvailable(), "no Vulkan device (install mesa-vulkan-drivers for lavapipe)");
        int frames = 40;
        try (Graph g = pipeline(frames, inFlight, "verify/equal/codelet_name=" + OrderedVerify.class.getName())) {
            RunResult r = g.run();
            OrderedVerify v = Graphs.codelet(g, "verify/equal", OrderedVerify.class);
            assertEquals(inFlight, v.framesInFlight());
            assertEquals(frames, v.verified());
            assertEquals(frames, v.lastFrame, "frames 1.." + frames + " in order");
            assertEquals(frames, g.entity("kernel").tickCount());
            assertEquals(StopReason.COMPLETED, r.reason(), "work done, the verifier left waiting for input: " + r);
            for (String pool : List.of("source/host_pool", "source/device_pool")) {
                assertEquals(8, g.component(pool, BlockMemoryPool.class).freeBlocks(), pool + " got every block back");
            }
            int blocks = Math.max(8, inFlight + 4);
            assertEquals(blocks, g.component("kernel/result_pool", BlockMemoryPool.class).freeBlocks());
            assertEquals(blocks, g.component("cpu/result_pool", BlockMemoryPool.class).freeBlocks());
        }
    }

    @Test
    void gpuPipelineAsShippedKeepsTwoFramesInFlight() {
        Assumptions.assumeTrue(vulkanAvailable(), "no Vulkan device (install mesa-vulkan-drivers for lavapipe)");
        try (Graph g = Graph.loader().file(Graphs.APPS.resolve("gpu-pipeline.yaml"))
                .param("source/count/count=20").param("verify/steps/codelet_params={expected_count: 20}").load()) {
            g.run();
            VerifyEqual v = Graphs.codelet(g, "verify/equal", VerifyEqual.class);
            assertEquals(2, v.framesInFlight());
            assertEquals(20, v.verified());
        }
    }

    /** A frame that differs fails the run with its number, whether it is compared in a tick or at stop. */
    @ParameterizedTest
    @ValueSource(ints = {0, 2, 8})
    void aCorruptedFrameFailsWithItsNumber(int inFlight) {
        Assumptions.assumeTrue(vulkanAvailable(), "no Vulkan device (install mesa-vulkan-drivers for lavapipe)");
        for (int bad : new int[] {7, 20}) {
            try (Graph g = pipeline(20, inFlight, "cpu/scale/codelet_name=" + CorruptScale.class.getName(),
                    "cpu/scale/codelet_file=None", "cpu/scale/codelet_params={receiver: in, transmitter: out,"
                            + " allocator: result_pool, corrupt_frame: " + bad + "}")) {
                GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
                float x = io.jkompute.graph.std.StreamGenerator.value(bad, 5);
                assertTrue(e.getMessage().contains("AssertionError: tensors differ at element 5 (HOST " + (2 * x + 2)
                        + " vs DEVICE " + (2 * x + 1) + ") in frame " + bad), e.getMessage());
                assertEquals(bad - 1, Graphs.codelet(g, "verify/equal", VerifyEqual.class).verified(),
                        "the frames before it were verified");
            }
        }
    }

    @Test
    void framesInFlightOutsideZeroToSixtyFourIsALoadError(@TempDir Path dir) throws Exception {
        for (String n : List.of("65", "-1")) {
            Path yaml = dir.resolve("verify.yaml");
            Files.writeString(yaml, """
                    name: verify
                    components:
                    - name: a
                      type: DoubleBufferReceiver
                    - name: b
                      type: DoubleBufferReceiver
                    - name: equal
                      type: JavaCodelet
                      parameters:
                        codelet_name: io.jkompute.graph.std.VerifyEqual
                        codelet_params: { receiver0: a, receiver1: b, frames_in_flight: N }
                    """.replace("N }", n + " }"));
            GraphLoadException e = assertThrows(GraphLoadException.class, () -> Graph.load(yaml));
            assertEquals(yaml + ":11: JavaCodelet 'verify/equal' (io.jkompute.graph.std.VerifyEqual): frames_in_flight"
                    + " must be 0 (lock-step) to 64, got " + n, e.getMessage());
            assertEquals(11, e.location().line());
        }
    }

    static boolean vulkanAvailable() {
        try {
            return !Manager.listDevices().isEmpty();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}

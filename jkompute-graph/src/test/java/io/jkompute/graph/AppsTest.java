package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

/** The example apps in apps/ run as shipped. */
class AppsTest {

    @Test
    void ping() {
        try (Graph g = Graph.load(Graphs.APPS.resolve("ping.yaml"))) {
            RunResult r = g.run();
            assertEquals(10, g.entity("tx").tickCount());
            assertEquals(10, Graphs.codelet(g, "rx/pong", PingRx.class).received());
            assertEquals(StopReason.DEADLOCK, r.reason());
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

    @Test
    void gpuPipelineMatchesTheCpuReference() {
        Assumptions.assumeTrue(vulkanAvailable(), "no Vulkan device (install mesa-vulkan-drivers for lavapipe)");
        try (Graph g = Graph.loader().file(Graphs.APPS.resolve("gpu-pipeline.yaml"))
                .param("source/count/count=20").param("verify/steps/codelet_params={expected_count: 20}").load()) {
            RunResult r = g.run();
            assertEquals(20, Graphs.codelet(g, "verify/equal", VerifyEqual.class).verified());
            assertEquals(20, g.entity("kernel").tickCount());
            assertEquals(StopReason.DEADLOCK, r.reason(), "ends with everyone waiting for input: " + r);
            for (String pool : List.of("source/host_pool", "source/device_pool")) {
                assertEquals(8, g.component(pool, BlockMemoryPool.class).freeBlocks(), pool + " got every block back");
            }
            assertEquals(4, g.component("kernel/result_pool", BlockMemoryPool.class).freeBlocks());
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

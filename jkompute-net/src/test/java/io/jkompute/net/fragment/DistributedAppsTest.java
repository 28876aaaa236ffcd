package io.jkompute.net.fragment;

import io.jkompute.net.ChildClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.StopReason;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shipped fragment apps through the driver, each fragment in its own worker JVM: the GPU pipeline in two
 * fragments (source, gpu) on lavapipe, and the relay chain over three JVMs with exact counts and order.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DistributedAppsTest {
    @BeforeAll
    static void workers() {
        ChildClasses.startChildrenFromArchive();
    }

    record Run(FragmentDriver.AppResult result, String log) {
    }

    static Run run(String app, List<String> local, List<String> params, boolean gpuFallback) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8);
        FragmentDriver d = new FragmentDriver(new FragmentDriver.Options(FragmentPlanTest.APPS.resolve(app),
                "127.0.0.1", FragmentDriverTest.freePort(), local, List.of(), params, Duration.ofSeconds(120),
                gpuFallback, ps, ps));
        FragmentDriver.AppResult r = d.run();
        return new Run(r, log.toString(StandardCharsets.UTF_8));
    }

    @Test
    void gpuPipelineInTwoWorkerJvmsVerifiesEveryFrame() throws Exception {
        int n = 120;
        // 'gpu' is placed on device 1; CI has one Vulkan device, so --gpu-fallback moves it to device 0
        Run run = run("fragments-gpu-pipeline.yaml", List.of("source", "gpu"), List.of(
                "source/count/count=" + n, "kernel/count/count=" + n, "cpu/count/count=" + n,
                "verify/count/count=" + n, "verify/steps/codelet_params={expected_count: " + n + "}"), true);
        assertTrue(run.result().ok(), run.result().error() + "\n" + run.log());
        assertEquals(StopReason.COMPLETED, run.result().fragment("source").reason(), run.log());
        assertEquals(StopReason.COMPLETED, run.result().fragment("gpu").reason(), run.log());
        var stats = run.result().statistics();
        assertEquals(n, stats.entity("source").ticks());
        assertEquals(2L * n, stats.entity("source").messagesOut());
        assertEquals(n, stats.entity("kernel").messagesIn());
        assertEquals(n, stats.entity("cpu").messagesIn());
        assertEquals(n, stats.entity("verify").ticks());
        assertEquals(2L * n, stats.entity("verify").messagesIn());
        assertTrue(run.log().contains("using device 0 (--gpu-fallback)"), run.log());
    }

    @Test
    void relayOverThreeWorkerJvmsKeepsCountsAndOrder() throws Exception {
        Run run = run("fragments-relay.yaml", List.of("tx", "relay", "rx"), List.of(), false);
        assertTrue(run.result().ok(), run.result().error() + "\n" + run.log());
        var stats = run.result().statistics();
        for (String f : List.of("tx", "relay", "rx")) {
            assertEquals(StopReason.COMPLETED, run.result().fragment(f).reason(), run.log());
            assertEquals(1000, stats.entity(f).ticks(), f);
        }
        assertEquals(1000, stats.entity("tx").messagesOut());
        assertEquals(1000, stats.entity("relay").messagesIn());
        assertEquals(1000, stats.entity("relay").messagesOut());
        assertEquals(1000, stats.entity("rx").messagesIn());
    }
}

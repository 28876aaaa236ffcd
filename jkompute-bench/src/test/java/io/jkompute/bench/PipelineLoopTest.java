package io.jkompute.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.Manager;
import io.jkompute.bench.internal.GraphSuite;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** A short PipelineLoop: exactly the frames asked for, each verified, with its three memory samples. */
class PipelineLoopTest {
    @Test
    void runsExactlyTheFramesAskedForAndSamplesMemory() {
        Assumptions.assumeFalse(Manager.listDevices().isEmpty(), "no Vulkan device");
        Path app = GraphSuite.findApp();
        Assumptions.assumeTrue(app != null, "apps/gpu-pipeline.yaml not found from " + Path.of("").toAbsolutePath());
        for (int inFlight : new int[] {0, 4}) {
            PipelineLoop.Result r = PipelineLoop.run(app, 300, inFlight, true);
            assertEquals(300, r.verified(), "every frame verified with " + inFlight + " in flight: " + r.stopReason());
            assertEquals(inFlight, r.framesInFlight());
            assertTrue(r.stopReason().startsWith("COMPLETED work done"), "ends with its work done: " + r.stopReason());
            assertTrue(r.framesPerSecond() > 0);
            assertEquals(3, r.heapBytes().length);
            for (int i = 0; i < 3; i++) {
                assertTrue(r.heapBytes()[i] > 0, "heap sample " + i);
                assertTrue(r.rssBytes()[i] > 0, "resident sample " + i);
                assertTrue(r.committedHeapBytes()[i] >= r.heapBytes()[i], "committed heap sample " + i);
            }
        }
    }
}

package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shipped GPU pipeline split into two processes (apps/distributed/gpu-pipeline-source.yaml and
 * gpu-pipeline-gpu.yaml) on a real Vulkan device: every frame crosses as a host and a device tensor, the GPU side
 * computes on its device and VerifyEqual checks each frame against the CPU; StepCount makes it exactly N.
 */
class GpuPipelineSplitTest {
    static final String SOURCE = Jvm.file("../apps/distributed/gpu-pipeline-source.yaml");
    static final String GPU = Jvm.file("../apps/distributed/gpu-pipeline-gpu.yaml");

    @Test
    void twoProcessGpuPipelineVerifiesExactlyNFrames() throws Exception {
        int n = 300;
        int hostPort = Jvm.freePort();
        int devicePort = Jvm.freePort();
        // the shipped apps use ports 13340/13341; other runs on this machine may too, so only the ports move
        try (Jvm gpu = Jvm.graph("gpu", GPU, "--param", "cpu/in/port=" + hostPort,
                "--param", "kernel/in/port=" + devicePort, "--param", "gpu/device/device_index=0",
                "--param", "kernel/count/count=" + n, "--param", "cpu/count/count=" + n,
                "--param", "verify/count/count=" + n,
                "--param", "verify/steps/codelet_params={expected_count: " + n + "}");
             Jvm source = Jvm.graph("source", SOURCE, "--param", "source/host_out/port=" + hostPort,
                     "--param", "source/device_out/port=" + devicePort, "--param", "gpu/device/device_index=0",
                     "--param", "source/count/count=" + n)) {
            assertEquals(0, source.await(300), source.output());
            assertEquals(0, gpu.await(300), gpu.output());
            assertEquals(List.of("RESULT COMPLETED"), gpu.lines("RESULT"), gpu.output());
            assertEquals(1, gpu.lines("DEVICE gpu/device 0 ").size(), gpu.output());
            assertEquals(1, source.lines("DEVICE gpu/device 0 ").size(), source.output());
            List<String> links = gpu.lines("LINK");
            assertEquals(2, links.size(), gpu.output());
            for (String l : links) {
                assertTrue(l.contains(": " + n + " sent, " + n + " delivered, 0 dropped, "), l);
            }
            for (String l : source.lines("LINK")) {
                assertTrue(l.contains(": " + n + " sent, " + n + " delivered, 0 dropped, "), l);
            }
        }
    }
}

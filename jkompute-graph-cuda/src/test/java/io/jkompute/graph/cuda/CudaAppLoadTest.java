package io.jkompute.graph.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jkompute.cuda.Cuda;
import io.jkompute.graph.ComponentRegistry;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading GXF CUDA apps: types, parameter checks, and the one-line refusal where CUDA is missing (CI). */
class CudaAppLoadTest {
    @TempDir
    Path dir;

    private static void assumeNoCuda() {
        assumeTrue(Cuda.unavailableReason() != null, "CUDA is usable here; this checks a machine without it");
    }

    private GraphLoadException loadFails(String yaml) {
        Path f = Apps.write(dir, "app.yaml", yaml);
        return assertThrows(GraphLoadException.class, () -> Graph.loader().file(f).load().close());
    }

    @Test
    void gxfCudaTypesAreRegisteredUnderGxfNames() {
        ComponentRegistry r = ComponentRegistry.standard();
        for (String t : new String[] {"GPUDevice", "CudaStreamPool", "CudaStreamSync"}) {
            assertTrue(r.contains("nvidia::gxf::" + t), t);
        }
        assertTrue(r.extensionNames().contains("CudaExtension"), r.extensionNames().toString());
    }

    @Test
    void cudaPipelineWithoutCudaStopsWithOneLine() {
        assumeNoCuda();
        GraphLoadException e = assertThrows(GraphLoadException.class,
                () -> Graph.loader().file(Apps.APPS.resolve("cuda-pipeline.yaml")).load().close());
        String m = e.getMessage();
        assertFalse(m.contains("\n"), "one line: " + m);
        assertTrue(m.contains("GPUDevice needs CUDA, which is not usable on this machine"), m);
        assertTrue(m.contains("cuda-pipeline.yaml:"), "names the file and line: " + m);
    }

    @Test
    void readmeExampleWithoutCudaStopsWithOneLine() {
        assumeNoCuda();
        GraphLoadException e = loadFails(Apps.readmeYaml());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains("needs CUDA"), e.getMessage());
    }

    @Test
    void streamPoolWithoutCudaStopsWithOneLine() {
        assumeNoCuda();
        GraphLoadException e = loadFails("""
                name: g
                components:
                - name: pool
                  type: nvidia::gxf::CudaStreamPool
                  parameters: { stream_flags: 0, stream_priority: 0, reserved_size: 1, max_size: 5 }
                """);
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains("CudaStreamPool 'g/pool' needs CUDA"), e.getMessage());
    }

    @Test
    void streamFlagsOtherThanDefaultAndNonBlockingAreRefused() {
        GraphLoadException e = loadFails("""
                name: g
                components:
                - name: pool
                  type: nvidia::gxf::CudaStreamPool
                  parameters: { stream_flags: 4 }
                """);
        assertTrue(e.getMessage().contains("parameter 'stream_flags' is 4; CUDA stream flags are 0 (default) or 1 "
                + "(non-blocking)"), e.getMessage());
    }

    @Test
    void badParameterValuesNameTheParameter() {
        GraphLoadException e = loadFails("""
                name: g
                components:
                - name: pool
                  type: nvidia::gxf::CudaStreamPool
                  parameters: { max_size: -1 }
                """);
        assertTrue(e.getMessage().contains("parameter 'max_size'"), e.getMessage());
        e = loadFails("""
                name: g
                components:
                - name: pool
                  type: nvidia::gxf::CudaStreamPool
                  parameters: { stream_priority: high }
                """);
        assertTrue(e.getMessage().contains("parameter 'stream_priority'"), e.getMessage());
        e = loadFails("""
                name: g
                components:
                - name: gpu
                  type: nvidia::gxf::GPUDevice
                  parameters: { dev_id: zero }
                """);
        assertTrue(e.getMessage().contains("parameter 'dev_id'"), e.getMessage());
    }

    @Test
    void streamSyncNeedsItsReceiver() {
        GraphLoadException e = loadFails("""
                name: g
                components:
                - type: nvidia::gxf::CudaStreamSync
                """);
        assertTrue(e.getMessage().contains("mandatory parameter 'rx'"), e.getMessage());
    }

    @Test
    void deviceStorageWithNeitherCudaNorVulkanDeviceIsRefused() {
        assumeNoCuda();
        GraphLoadException e = loadFails("""
                name: g
                components:
                - name: pool
                  type: nvidia::gxf::BlockMemoryPool
                  parameters: { storage_type: 1, block_size: 1024, num_blocks: 2 }
                """);
        assertTrue(e.getMessage().contains("storage_type 1 (device) needs parameter 'device', a handle to a "
                + "VulkanDevice component, or CUDA device memory"), e.getMessage());
    }

    /** Apps that use no CUDA run as before with the extension present. */
    @Test
    void appsWithoutCudaAreUnaffected() {
        try (Graph g = Graph.loader().file(Apps.APPS.resolve("ping.yaml")).load()) {
            RunResult r = g.run();
            assertTrue(r.reason() == StopReason.COMPLETED || r.reason() == StopReason.DEADLOCK, r.toString());
            assertEquals(10, g.entity("rx").tickCount(), "every ping arrived");
        }
    }
}

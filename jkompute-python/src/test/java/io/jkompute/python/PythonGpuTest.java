package io.jkompute.python;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jkompute.cuda.Cuda;
import io.jkompute.graph.Graph;
import io.jkompute.graph.JavaCodelet;
import io.jkompute.graph.StopReason;
import io.jkompute.python.internal.PythonInstall;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Python codelets with CuPy and PyTorch on CUDA tensors: no copies (same pointers), the CuPy apps and pipeline. */
@Tag("gpu")
class PythonGpuTest {
    static final Path APPS = TestPaths.APPS;
    static final Path GRAPHS = TestPaths.GRAPHS;

    @BeforeAll
    static void requireCudaAndCupy() {
        String why = Cuda.unavailableReason();
        assumeTrue(why == null, () -> "needs a CUDA driver and device (run on the GPU host): " + why);
        assumeTrue(imports("cupy"), "needs CuPy in " + PythonInstall.fromEnvironment().describe());
    }

    static boolean imports(String module) {
        try {
            Process p = new ProcessBuilder(PythonInstall.fromEnvironment().executable(), "-c", "import " + module)
                    .redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void cupyAndTorchSeeThePoolTensorsOwnPointer() {
        assumeTrue(imports("torch"), "needs PyTorch in " + PythonInstall.fromEnvironment().describe());
        try (Graph g = Graph.load(GRAPHS.resolve("cuda-check.yaml"))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            CudaRecorder rec = (CudaRecorder) g.component("sink/recorder", JavaCodelet.class).instance();
            assertEquals(3, rec.pointers.size());
            for (int i = 0; i < 3; i++) {
                long[] p = rec.pointers.get(i);
                assertNotEquals(0, p[0]);
                // tensor's own pointer == what __cuda_array_interface__ gave == CuPy's == PyTorch's == DLPack's
                assertEquals(List.of(p[0], p[0], p[0], p[0], p[0]), Arrays.stream(p).boxed().toList());
                float[] expected = new float[256];
                Arrays.fill(expected, i + 1.5f);
                assertArrayEquals(expected, rec.values.get(i), "CuPy's fill and PyTorch's += 0.5, read by Java");
            }
        }
    }

    @Test
    void launchPassesEveryArgumentKindAndRefusesBadCalls() {
        // LaunchCheck.py asserts each kind's bits in the kernel's parameters and each refused call's type and text
        try (Graph g = Graph.load(GRAPHS.resolve("launch-check.yaml"))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            assertEquals(3, g.entity("source").tickCount());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"python-dlpack-cupy-greedy.yaml", "python-dlpack-cupy-greedy-array-interface.yaml",
            "python-dlpack-cupy-multithread.yaml", "python-dlpack-cupy-multithread-array-interface.yaml"})
    void cupyDlpackAppsVerifyEveryFrame(String app) {
        try (Graph g = Graph.load(APPS.resolve(app))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            assertEquals(100, g.entity("tensor_pair_generator").tickCount());
            for (int i = 0; i < 3; i++) {
                assertEquals(100, g.entity("other_matmul_" + i).tickCount(), "CuPy matmul " + i);
                assertEquals(100, g.entity("verify_" + i).tickCount(), "verify " + i);
            }
        }
    }

    @Test
    void cupyKernelPipelineMatchesTheCpuBitForBit() {
        try (Graph g = Graph.load(APPS.resolve("python-cuda-pipeline.yaml"))) {
            g.run();
            assertEquals(200, g.entity("kernel").tickCount());
            assertEquals(200, g.entity("verify").tickCount(), "VerifyEqual compared every frame");
        }
    }

    @Test
    void cupyKernelPipelineUnderTheMultiThreadSchedulerMatchesTheCpuBitForBit(@TempDir Path dir) throws IOException {
        // the same app and codelets with 4 scheduler workers: gxf.cuda.launch packs into a per-thread parameter
        // block and shares its kernel cache, and the kernel codelet may tick on any worker
        String greedy = "type: nvidia::gxf::GreedyScheduler\n  parameters: { clock: clock, max_duration_ms: 120000 }";
        String app = Files.readString(APPS.resolve("python-cuda-pipeline.yaml"));
        assertTrue(app.contains(greedy), "python-cuda-pipeline.yaml's scheduler changed; update this test");
        Files.writeString(dir.resolve("app.yaml"), app.replace(greedy, "type: nvidia::gxf::MultiThreadScheduler\n"
                + "  parameters: { clock: clock, worker_thread_number: 4, max_duration_ms: 120000, stop_on_deadlock: true }"));
        for (String f : List.of("python/cuda/CupyScale.py", "gpu-pipeline/CpuScale.java")) {
            Files.createDirectories(dir.resolve(f).getParent());
            Files.copy(APPS.resolve(f), dir.resolve(f));
        }
        try (Graph g = Graph.loader().file(dir.resolve("app.yaml")).param("source/count/count=2000")
                .param("verify/steps/codelet_params={ expected_count: 2000 }").load()) {
            g.run();
            assertEquals(2000, g.entity("kernel").tickCount());
            assertEquals(2000, g.entity("verify").tickCount(), "VerifyEqual compared every frame");
        }
    }
}

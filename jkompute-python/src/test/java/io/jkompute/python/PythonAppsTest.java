package io.jkompute.python;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jkompute.Manager;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphExecutionException;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.StopReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped Python apps with numpy on the host, and the one-line errors of a codelet that cannot run. */
class PythonAppsTest {
    static final Path APPS = TestPaths.APPS;

    @ParameterizedTest
    @ValueSource(strings = {"python-dlpack-host-greedy.yaml", "python-dlpack-host-greedy-array-interface.yaml",
            "python-dlpack-host-multithread.yaml", "python-dlpack-host-multithread-array-interface.yaml"})
    void dlpackHostAppsVerifyEveryFrame(String app) {
        try (Graph g = Graph.load(APPS.resolve(app))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            assertEquals(100, g.entity("tensor_pair_generator").tickCount());
            for (String side : List.of("host", "other")) {
                for (int i = 0; i < 3; i++) {
                    assertEquals(100, g.entity(side + "_matmul_" + i).tickCount(), side + " matmul " + i);
                }
            }
            for (int i = 0; i < 3; i++) {
                // VerifyEqual.py compares every product with the exact one; StepCount.py (stop) checks the count
                assertEquals(100, g.entity("verify_" + i).tickCount(), "verify " + i);
            }
        }
    }

    @Test
    void streamGeneratorToVerifyEqualWithVulkanDeviceTensors() {
        Assumptions.assumeTrue(vulkanAvailable(), "no Vulkan device (install mesa-vulkan-drivers for lavapipe)");
        try (Graph g = Graph.load(APPS.resolve("python-stream.yaml"))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            assertEquals(20, g.entity("source").tickCount());
            assertEquals(20, g.entity("verify").tickCount());
        }
    }

    @Test
    void aWrongValueFailsVerifyEqualWithItsLine(@TempDir Path dir) throws Exception {
        // the same app with the generator's matrices one bigger than VerifyEqual's expected product: must fail
        String yaml = Files.readString(APPS.resolve("python-dlpack-host-greedy.yaml"))
                .replace("rows: 16, cols: 64, dtype: f", "rows: 16, cols: 65, dtype: f")
                .replace("codelet_file: python/", "codelet_file: " + APPS.toAbsolutePath().normalize() + "/python/");
        Path app = Files.writeString(dir.resolve("app.yaml"), yaml);
        try (Graph g = Graph.load(app)) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            int line = PyCodeletV0TestSupport.lineOf(APPS.resolve("python/dlpack/VerifyEqual.py"),
                    "np.testing.assert_allclose(host, self.expected");
            String m = e.getMessage();
            String head = "codelet 'verify_0/verify' (PyCodeletV0) failed in tick(): PythonCodeletException: VerifyEqual.py:"
                    + line + ": AssertionError: \nNot equal to tolerance rtol=1e-05";
            assertEquals(head, m.substring(0, Math.min(m.length(), head.length())), m);
        }
    }

    @Test
    void aCodeletImportingAMissingModuleIsOneLoadLine(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("Needs.py"), "from gxf.python_codelet import CodeletAdapter\n"
                + "import jkompute_no_such_module\n\nclass Needs(CodeletAdapter):\n    pass\n");
        Path yaml = Files.writeString(dir.resolve("app.yaml"), """
                name: e
                components:
                - name: py
                  type: nvidia::gxf::PyCodeletV0
                  parameters: { codelet_name: Needs, codelet_file: Needs.py }
                """);
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> Graph.load(yaml).close());
        assertEquals(yaml + ":4: PyCodeletV0 'e/py': Needs.py:2: ModuleNotFoundError: No module named "
                + "'jkompute_no_such_module'", e.getMessage());
    }

    @Test
    void aCodeletRaisingInTickIsOneLine(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("Raises.py"), "from gxf.python_codelet import CodeletAdapter\n\n"
                + "class Raises(CodeletAdapter):\n    def tick(self):\n        raise KeyError('frame 7')\n");
        Path yaml = Files.writeString(dir.resolve("app.yaml"), """
                name: e
                components:
                - name: py
                  type: nvidia::gxf::PyCodeletV0
                  parameters: { codelet_name: Raises, codelet_file: Raises.py }
                - type: nvidia::gxf::CountSchedulingTerm
                  parameters: { count: 1 }
                """);
        try (Graph g = Graph.load(yaml)) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            assertEquals("codelet 'e/py' (PyCodeletV0) failed in tick(): PythonCodeletException: Raises.py:5: "
                    + "KeyError: 'frame 7'", e.getMessage());
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

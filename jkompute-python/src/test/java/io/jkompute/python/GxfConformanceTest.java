package io.jkompute.python;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.JavaCodelet;
import io.jkompute.graph.StopReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What GXF's own Python codelet tests (run unchanged by scripts/gxf-conformance.sh) need beyond jkompute's apps,
 * checked in jkompute's own terms.
 */
class GxfConformanceTest {
    static final Path GRAPHS = TestPaths.GRAPHS;

    @Test
    void addNpArrayAsTensorCopiesTheArrayIntoAPoolTensor() {
        try (Graph g = Graph.load(GRAPHS.resolve("np-array-tensor.yaml"))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            FactsRecorder rec = (FactsRecorder) g.component("sink/recorder", JavaCodelet.class).instance();
            // the values when added (columns reversed), not the -1s written to the source afterwards
            assertEquals(List.of("0 [2, 1, 0, 5, 4, 3]", "1 [12, 11, 10, 15, 14, 13]", "2 [22, 21, 20, 25, 24, 23]"),
                    rec.seen);
        }
    }

    @Test
    void complexTensorsReachNumpyAndJavaWithTheirValues() {
        try (Graph g = Graph.load(GRAPHS.resolve("complex-tensors.yaml"))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            assertEquals(2, g.entity("check").tickCount(), "ComplexRx.py checked both messages");
            ComplexRecorder rec = (ComplexRecorder) g.component("sink/recorder", JavaCodelet.class).instance();
            assertEquals(List.of(
                    "complex64[2][1.0, 2.0, -3.5, 0.25] complex128[2, 1][1.0E300, 1.0, 2.0, -1.0E-300]",
                    "complex64[2][2.0, 2.0, -2.5, 0.25] complex128[2, 1][1.0E300, 1.0, 3.0, -1.0E-300]"), rec.seen);
        }
    }

    @Test
    void aRelativeCodeletFileNotBesideTheYamlIsFoundFromTheWorkingDirectory(@TempDir Path dir) throws Exception {
        // GXF's apps name codelet files from the workspace root (gxf/python/tests/PingTx.py) and run there
        Path relative = GRAPHS.resolve("GxfCompat.py");
        assertFalse(relative.isAbsolute());
        assertFalse(Files.exists(dir.resolve(relative)));
        try (Graph g = Graph.load(Files.writeString(dir.resolve("app.yaml"),
                npArrayApp().replace("codelet_file: GxfCompat.py", "codelet_file: " + relative)))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            assertEquals(3, g.entity("sink").tickCount());
        }
    }

    @Test
    void aMissingCodeletFileNamesBothPlacesLookedAt(@TempDir Path dir) throws Exception {
        Path yaml = Files.writeString(dir.resolve("app.yaml"), """
                name: e
                components:
                - name: py
                  type: nvidia::gxf::PyCodeletV0
                  parameters: { codelet_name: Nope, codelet_file: gxf/python/tests/Nope.py }
                """);
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> Graph.load(yaml).close());
        assertEquals(yaml + ":4: PyCodeletV0 'e/py': codelet_file 'gxf/python/tests/Nope.py' not found (looked at "
                + dir.resolve("gxf/python/tests/Nope.py") + ", "
                + Path.of("gxf/python/tests/Nope.py").toAbsolutePath() + ")", e.getMessage());
    }

    private static String npArrayApp() throws Exception {
        return Files.readString(GRAPHS.resolve("np-array-tensor.yaml"));
    }
}

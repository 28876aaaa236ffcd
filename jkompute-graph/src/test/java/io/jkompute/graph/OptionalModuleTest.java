package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A type from a module that is not on the class path (here jkompute-python) says which module to add. */
class OptionalModuleTest {
    @Test
    void pyCodeletWithoutThePythonModuleNamesTheModule(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(ComponentRegistry.class.getClassLoader().getResource(
                "io/jkompute/python/PyCodeletV0.class") == null,
                "jkompute-python is on the class path here (every module's tests in one JVM)");
        Path yaml = Files.writeString(dir.resolve("app.yaml"), """
                name: rx
                components:
                - name: in
                  type: nvidia::gxf::DoubleBufferReceiver
                - name: py
                  type: nvidia::gxf::PyCodeletV0
                  parameters: { codelet_name: PingRx, codelet_file: PingRx.py }
                """);
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> Graph.load(yaml).close());
        assertEquals(yaml + ":6: PyCodeletV0 needs the jkompute-python module on the class path (./jkompute adds it "
                + "when built with it: ./jkompute build)", e.getMessage());
    }
}

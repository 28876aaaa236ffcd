package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.ComponentRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoadErrorsTest {
    @TempDir
    Path dir;

    private GraphLoadException load(String yaml) throws Exception {
        Path f = dir.resolve("bad.yaml");
        Files.writeString(f, yaml);
        return assertThrows(GraphLoadException.class, () -> {
            try (Graph g = Graph.load(f)) {
                g.activate();
            }
        });
    }

    @Test
    void gxfNamesAreRegistered() {
        ComponentRegistry r = ComponentRegistry.standard();
        for (String t : new String[] {"UcxContext", "UcxTransmitter", "UcxReceiver", "UcxEntitySerializer",
                "UcxComponentSerializer", "UcxSerializationBuffer"}) {
            assertTrue(r.contains("nvidia::gxf::" + t), t);
        }
    }

    @Test
    void busyPollOutOfRangeIsALoadErrorWithLine() throws Exception {
        GraphLoadException e = load("""
                name: ucx
                components:
                - name: context
                  type: nvidia::gxf::UcxContext
                  parameters:
                    busy_poll_us: 20000000
                """);
        assertTrue(e.getMessage().contains("bad.yaml:6"), e.getMessage());
        assertTrue(e.getMessage().contains("'busy_poll_us' must be between 0 and 10000000 (10 s), got 20000000"),
                e.getMessage());
    }

    @Test
    void badPortIsALoadErrorWithFileAndLine() throws Exception {
        GraphLoadException e = load("""
                name: rx
                components:
                - name: signal
                  type: nvidia::gxf::UcxReceiver
                  parameters:
                    port: 70000
                """);
        assertTrue(e.getMessage().contains("bad.yaml:6"), e.getMessage());
        assertTrue(e.getMessage().contains("'port'"), e.getMessage());
    }

    @Test
    void badPolicyAndCapacityAreLoadErrorsWithLines() throws Exception {
        GraphLoadException e = load("""
                name: tx
                components:
                - name: signal
                  type: nvidia::gxf::UcxTransmitter
                  parameters: { policy: 7 }
                """);
        assertTrue(e.getMessage().contains("bad.yaml:5"), e.getMessage());
        e = load("""
                name: tx
                components:
                - name: signal
                  type: nvidia::gxf::UcxTransmitter
                  parameters:
                    capacity: 0
                """);
        assertTrue(e.getMessage().contains("bad.yaml:6") && e.getMessage().contains("'capacity'"), e.getMessage());
        e = load("""
                name: tx
                components:
                - name: signal
                  type: nvidia::gxf::UcxTransmitter
                  parameters:
                    maximum_connection_retries: oops
                """);
        assertEquals(true, e.getMessage().contains("bad.yaml:6"), e.getMessage());
    }
}

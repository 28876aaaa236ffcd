package io.jkompute.net.fragment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fragments document, the per-fragment text (lines kept, queues swapped) and its errors with file:line. */
class FragmentPlanTest {
    static final Path APPS = fromModule("../apps/distributed");

    static Path fromModule(String relative) {
        Path inModule = Path.of(relative);
        return Files.exists(inModule) ? inModule : Path.of("jkompute-net").resolve(relative).normalize();
    }

    private static final FragmentPlan.Wiring WIRING =
            new FragmentPlan.Wiring(Map.of("rx/in", "10.0.0.2:12345"), "0.0.0.0");

    @Test
    void pingSplitsIntoTwoFragmentsWithOneEdge() throws Exception {
        FragmentPlan plan = FragmentPlan.read(APPS.resolve("fragments-ping.yaml"));
        assertEquals(List.of("tx", "rx"), plan.fragmentNames());
        assertEquals(List.of("tx", "sched"), plan.fragment("tx").entities());
        assertEquals(List.of("rx", "sched"), plan.fragment("rx").entities());
        assertEquals(1, plan.edges().size());
        FragmentPlan.Edge e = plan.edges().get(0);
        assertEquals("tx/out", e.transmitter());
        assertEquals("rx/in", e.receiver());
        assertEquals(List.of(new FragmentPlan.RemoteReceiver("rx", "rx/in", 1, 2)), plan.remoteReceivers());
        assertNull(plan.fragmentOf("sched"));

        String original = Files.readString(APPS.resolve("fragments-ping.yaml"));
        List<String> lines = original.lines().toList();
        FragmentPlan.FragmentSource tx = plan.source("tx", WIRING);
        List<String> txLines = tx.text().lines().toList();
        // every original line keeps its number; the transport entity is appended after them
        int outType = lines.indexOf("  type: DoubleBufferTransmitter");
        assertEquals("  type: " + FragmentPlan.UCX_TRANSMITTER, txLines.get(outType));
        assertEquals(lines.get(outType + 1), txLines.get(outType + 1));
        assertFalse(tx.text().contains("DoubleBufferReceiver"), tx.text());
        assertFalse(tx.text().contains("type: Connection"), tx.text());
        assertFalse(tx.text().contains("\nfragments:"), tx.text());
        assertTrue(tx.text().contains("name: " + FragmentPlan.TRANSPORT_ENTITY));
        assertEquals(lines.get(lines.size() - 1), txLines.get(lines.size() - 1));
        assertTrue(tx.overrides().containsAll(List.of("tx/out/receiver_address=10.0.0.2", "tx/out/port=12345",
                "tx/out/capacity=1", "tx/out/policy=2")), tx.overrides().toString());

        FragmentPlan.FragmentSource rx = plan.source("rx", WIRING);
        int inType = lines.indexOf("  type: DoubleBufferReceiver");
        assertEquals("  type: " + FragmentPlan.UCX_RECEIVER, rx.text().lines().toList().get(inType));
        assertFalse(rx.text().contains("PingTx"));
        assertTrue(rx.overrides().containsAll(List.of("rx/in/address=0.0.0.0", "rx/in/port=12345")));
    }

    private static final String TWO_LOCAL = """
            ---
            fragments:
              a: [a_tx, a_rx]
              b: { entities: [b_tx, b_rx], gpu: 1 }
            shared: [sched, gpu]
            ---
            name: gpu
            components:
            - name: device
              type: VulkanDevice
              parameters: { device_index: 0 }
            """ + pair("a", 5) + pair("b", 7) + """
            ---
            name: sched
            components:
            - name: clock
              type: RealtimeClock
            - type: GreedyScheduler
              parameters: { clock: clock, max_duration_ms: 20000 }
            """;

    static String pair(String p, int count) {
        return """
                ---
                name: P_tx
                components:
                - name: out
                  type: DoubleBufferTransmitter
                - type: DownstreamReceptiveSchedulingTerm
                  parameters: { transmitter: out }
                - type: CountSchedulingTerm
                  parameters: { count: N }
                - name: ping
                  type: JavaCodelet
                  parameters:
                    codelet_name: io.jkompute.graph.std.PingTx
                    codelet_params: { transmitter: out }
                ---
                name: P_rx
                components:
                - name: in
                  type: DoubleBufferReceiver
                - type: MessageAvailableSchedulingTerm
                  parameters: { receiver: in }
                - type: CountSchedulingTerm
                  parameters: { count: N }
                - name: pong
                  type: JavaCodelet
                  parameters:
                    codelet_name: io.jkompute.graph.std.PingRx
                    codelet_params: { receiver: in }
                - name: steps
                  type: JavaCodelet
                  parameters:
                    codelet_name: io.jkompute.graph.std.StepCount
                    codelet_params: { expected_count: N }
                ---
                components:
                - type: Connection
                  parameters: { source: P_tx/out, target: P_rx/in }
                """.replace("P_", p + "_").replace("N", Integer.toString(count));
    }

    @Test
    void aFragmentWithoutEdgesLoadsAndRunsAlone() {
        FragmentPlan plan = FragmentPlan.read("two.yaml", TWO_LOCAL);
        assertTrue(plan.edges().isEmpty());
        FragmentPlan.Wiring none = new FragmentPlan.Wiring(Map.of(), "0.0.0.0");
        assertTrue(plan.source("b", none).overrides().contains("gpu/device/device_index=1"));
        assertTrue(plan.source("a", none).overrides().isEmpty());
        assertFalse(plan.source("a", none).text().contains(FragmentPlan.TRANSPORT_ENTITY));
        // an override for another fragment's entity is skipped
        try (Graph g = plan.load("a", none, List.of(), List.of("b_tx/ping/codelet_name=nothing"))) {
            assertNotNull(g.entity("a_tx"));
            assertNull(g.entity("b_tx"));
            RunResult r = g.run();
            assertEquals(StopReason.COMPLETED, r.reason());
            assertEquals(5, r.statistics().entity("a_rx").ticks());
        }
    }

    @Test
    void theWholeAppStillRunsInOneProcess() {
        try (Graph g = Graph.load(APPS.resolve("fragments-ping.yaml"))) {
            RunResult r = g.run();
            assertEquals(StopReason.COMPLETED, r.reason());
            assertEquals(100, r.statistics().entity("rx").ticks());
        }
    }

    @Test
    void loadErrorsInAFragmentNameTheAppFileAndLine() {
        String bad = TWO_LOCAL.replace("codelet_params: { expected_count: 7 }",
                "codelet_params: { expected_count: 7 }\n- type: NoSuchThing");
        assertTrue(bad.contains("NoSuchThing"));
        int line = lineOf(bad, "- type: NoSuchThing");
        FragmentPlan plan = FragmentPlan.read("two.yaml", bad);
        FragmentPlan.Wiring none = new FragmentPlan.Wiring(Map.of(), "0.0.0.0");
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> plan.load("b", none, List.of(), List.of()));
        assertEquals("two.yaml", e.location().file());
        assertEquals(line, e.location().line(), e.getMessage());
        // fragment a does not have it
        plan.load("a", none, List.of(), List.of()).close();
    }

    static int lineOf(String text, String needle) {
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(needle)) {
                return i + 1;
            }
        }
        throw new AssertionError(needle);
    }

    private static void assertError(String yaml, String needle, String messagePart) {
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> FragmentPlan.read("bad.yaml", yaml));
        assertEquals("bad.yaml", e.location().file(), e.getMessage());
        assertEquals(lineOf(yaml, needle), e.location().line(), e.getMessage());
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
    }

    @Test
    void badFragmentsDocumentsAreLoadErrorsWithFileAndLine() {
        assertError(TWO_LOCAL.replace("a: [a_tx, a_rx]", "a: [a_tx, a_rx, nobody]"), "nobody",
                "unknown entity 'nobody'");
        assertError(TWO_LOCAL.replace("entities: [b_tx, b_rx]", "entities: [b_tx, b_rx, a_rx]"), "entities: [b_tx",
                "entity 'a_rx' is in two places");
        assertError(TWO_LOCAL.replace("a: [a_tx, a_rx]", "a: [a_tx]"), "name: a_rx", "entity 'a_rx' is in no fragment");
        assertError(TWO_LOCAL.replace("gpu: 1", "gpu: -1"), "gpu: -1", "device index");
        assertError(TWO_LOCAL.replace("gpu: 1", "gpus: 1"), "gpus: 1", "unknown key 'gpus'");
        assertError(TWO_LOCAL.replace("shared: [sched, gpu]", "shared: [sched, gpu]\n---\nfragments: {c: [x]}"),
                "fragments: {c", "a second 'fragments:' document");
        assertError(TWO_LOCAL.replace("target: a_rx/in", "target: sched/clock"), "target: sched/clock",
                "entity 'sched' is shared");
        String twoFeeds = TWO_LOCAL.replace("target: a_rx/in", "target: b_rx/in");
        GraphLoadException feeds = assertThrows(GraphLoadException.class, () -> FragmentPlan.read("bad.yaml", twoFeeds));
        assertEquals(lineOf(twoFeeds, "source: a_tx/out, target: b_rx/in") - 1, feeds.location().line());
        assertTrue(feeds.getMessage().contains("also from its own fragment"), feeds.getMessage());
        GraphLoadException none = assertThrows(GraphLoadException.class,
                () -> FragmentPlan.read("bad.yaml", pair("a", 1)));
        assertTrue(none.getMessage().startsWith("bad.yaml: no 'fragments:' document"), none.getMessage());
    }

    @Test
    void fanOutToAnotherFragmentIsRefused() {
        String fan = TWO_LOCAL.replace("parameters: { source: b_tx/out, target: b_rx/in }",
                "parameters: { source: b_tx/out, target: b_rx/in }\n- type: Connection\n"
                        + "  parameters: { source: b_tx/out, target: a_rx/in }");
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> FragmentPlan.read("fan.yaml", fan));
        assertEquals(lineOf(fan, "source: b_tx/out, target: a_rx/in") - 1, e.location().line(), e.getMessage());
        assertTrue(e.getMessage().contains("transmitter 'b_tx/out' feeds another fragment and has 2 connections"),
                e.getMessage());
    }
}

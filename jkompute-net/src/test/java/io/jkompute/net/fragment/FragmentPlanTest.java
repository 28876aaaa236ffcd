package io.jkompute.net.fragment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.SourceLocation;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * The fragments document, each fragment's documents (the app's nodes with their lines, queues retyped for links) and
 * their errors with file:line.
 */
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


        List<String> lines = Files.readAllLines(APPS.resolve("fragments-ping.yaml"));
        int connection = lines.indexOf("- type: Connection") + 1;
        FragmentPlan.FragmentDocuments tx = plan.documents("tx", WIRING);
        assertEquals(APPS.resolve("fragments-ping.yaml").toString(), tx.label());
        assertEquals("""
                ---
                name: tx
                components:
                - name: out
                  type: nvidia::gxf::UcxTransmitter
                  parameters: {capacity: 1, policy: 2, receiver_address: 10.0.0.2, port: 12345}
                - type: DownstreamReceptiveSchedulingTerm
                  parameters: {transmitter: out, min_size: 1}
                - name: count
                  type: CountSchedulingTerm
                  parameters: {count: 100}
                - name: ping
                  type: JavaCodelet
                  parameters:
                    codelet_name: io.jkompute.graph.std.PingTx
                    codelet_params: {transmitter: out, clock: sched/clock}
                """ + SCHED_DOCUMENT + TRANSPORT_DOCUMENT, tx.yaml());
        // the retyped queue keeps the lines of the app's nodes; the wiring's values name the connection they carry
        Node out = component(tx.documents().get(0), 0);
        assertEquals(lines.indexOf("  type: DoubleBufferTransmitter") + 1, line(value(out, "type")));
        assertEquals(lines.indexOf("  parameters: { capacity: 1, policy: 2 }") + 1, line(value(out, "parameters")));
        assertEquals(connection, line(value((MappingNode) value(out, "parameters"), "port")));
        assertEquals(connection, line(value((MappingNode) value(out, "parameters"), "receiver_address")));

        FragmentPlan.FragmentDocuments rx = plan.documents("rx", WIRING);
        assertEquals("""
                ---
                name: rx
                components:
                - name: in
                  type: nvidia::gxf::UcxReceiver
                  parameters: {capacity: 1, policy: 2, address: 0.0.0.0, port: 12345}
                - type: MessageAvailableSchedulingTerm
                  parameters: {receiver: in, min_size: 1}
                - name: count
                  type: CountSchedulingTerm
                  parameters: {count: 100}
                - name: pong
                  type: JavaCodelet
                  parameters:
                    codelet_name: io.jkompute.graph.std.PingRx
                    codelet_params: {receiver: in}
                - name: steps
                  type: JavaCodelet
                  parameters:
                    codelet_name: io.jkompute.graph.std.StepCount
                    codelet_params: {expected_count: 100}
                """ + SCHED_DOCUMENT + TRANSPORT_DOCUMENT, rx.yaml());
        Node in = component(rx.documents().get(0), 0);
        assertEquals(lines.indexOf("  type: DoubleBufferReceiver") + 1, line(value(in, "type")));
        assertEquals(connection, line(value((MappingNode) value(in, "parameters"), "port")));
    }

    private static final String SCHED_DOCUMENT = """
            ---
            name: sched
            components:
            - name: clock
              type: RealtimeClock
            - type: GreedyScheduler
              parameters: {clock: clock, max_duration_ms: 60000, stop_on_deadlock: false}
            """;

    private static final String TRANSPORT_DOCUMENT = """
            ---
            name: _fragment_transport
            components:
            - name: allocator
              type: nvidia::gxf::UnboundedAllocator
            - name: component_serializer
              type: nvidia::gxf::UcxComponentSerializer
              parameters: {allocator: allocator}
            - name: entity_serializer
              type: nvidia::gxf::UcxEntitySerializer
              parameters: {component_serializers: [component_serializer]}
            - name: context
              type: nvidia::gxf::UcxContext
              parameters: {serializer: entity_serializer}
            """;

    private static Node value(Node mapping, String key) {
        for (NodeTuple t : ((MappingNode) mapping).getValue()) {
            if (((ScalarNode) t.getKeyNode()).getValue().equals(key)) {
                return t.getValueNode();
            }
        }
        throw new AssertionError("no '" + key + "' in " + mapping);
    }

    private static Node component(Node document, int index) {
        return ((SequenceNode) value(document, "components")).getValue().get(index);
    }

    private static int line(Node n) {
        return n.getStartMark().orElseThrow().getLine() + 1;
    }

    /** The entity names of a fragment's documents, "-" for an unnamed one (a connection entity). */
    private static List<String> entities(FragmentPlan.FragmentDocuments documents) {
        return documents.documents().stream().map(d -> ((MappingNode) d).getValue().stream()
                .filter(t -> ((ScalarNode) t.getKeyNode()).getValue().equals("name"))
                .map(t -> ((ScalarNode) t.getValueNode()).getValue()).findFirst().orElse("-")).toList();
    }

    private static Object deviceIndex(FragmentPlan.FragmentDocuments documents) {
        Node gpu = documents.documents().get(entities(documents).indexOf("gpu"));
        return ((ScalarNode) value(value(component(gpu, 0), "parameters"), "device_index")).getValue();
    }

    static final String TWO_LOCAL = """
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
        // no links: no transport entity; the other fragment's connection entity is left out, not left empty
        assertEquals(List.of("gpu", "a_tx", "a_rx", "-", "sched"), entities(plan.documents("a", none)));
        assertEquals(List.of("gpu", "b_tx", "b_rx", "-", "sched"), entities(plan.documents("b", none)));
        assertEquals("0", deviceIndex(plan.documents("a", none)));
        assertEquals("1", deviceIndex(plan.documents("b", none)));
        assertEquals(List.of("gpu/device"), plan.vulkanDevices("b"));
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
    void connectionsInAFlowListAreSplitLikeABlockList() {
        String block = """
                components:
                - type: Connection
                  parameters: { source: a_tx/out, target: a_rx/in }
                """;
        assertTrue(TWO_LOCAL.contains(block));
        FragmentPlan plan = FragmentPlan.read("flow.yaml", TWO_LOCAL.replace(block,
                "components: [{ type: Connection, parameters: { source: a_tx/out, target: a_rx/in } }]\n"));
        FragmentPlan.Wiring none = new FragmentPlan.Wiring(Map.of(), "0.0.0.0");
        assertEquals(List.of("gpu", "b_tx", "b_rx", "-", "sched"), entities(plan.documents("b", none)));
        try (Graph g = plan.load("a", none, List.of(), List.of())) {
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

    @Test
    void fragmentsPlannedFromOnePlanAreIndependent() throws Exception {
        FragmentPlan.Wiring none = new FragmentPlan.Wiring(Map.of(), "0.0.0.0");
        String aAlone = FragmentPlan.read("two.yaml", TWO_LOCAL).documents("a", none).yaml();
        String bAlone = FragmentPlan.read("two.yaml", TWO_LOCAL).documents("b", none).yaml();
        FragmentPlan plan = FragmentPlan.read("two.yaml", TWO_LOCAL);
        // b places the shared 'gpu' entity's device on GPU 1; a, planned after it, still has the app's 0
        assertEquals(bAlone, plan.documents("b", none).yaml());
        assertEquals(aAlone, plan.documents("a", none).yaml());
        assertEquals(bAlone, plan.documents("b", none).yaml());
        assertEquals("0", deviceIndex(plan.documents("a", none)));

        Path app = APPS.resolve("fragments-ping.yaml");
        String rxAlone = FragmentPlan.read(app).documents("rx", WIRING).yaml();
        FragmentPlan ping = FragmentPlan.read(app);
        String tx = ping.documents("tx", WIRING).yaml();
        assertEquals(rxAlone, ping.documents("rx", WIRING).yaml());
        assertEquals(tx, ping.documents("tx", WIRING).yaml());
        // other wiring, other parameters; the first result is not changed by the second
        FragmentPlan.FragmentDocuments first = ping.documents("rx", WIRING);
        FragmentPlan.FragmentDocuments other = ping.documents("rx",
                new FragmentPlan.Wiring(Map.of("rx/in", "10.0.0.3:2000"), "127.0.0.1"));
        assertEquals(rxAlone, first.yaml());
        assertEquals(rxAlone.replace("address: 0.0.0.0, port: 12345", "address: 127.0.0.1, port: 2000"),
                other.yaml());
    }

    @Test
    void badParametersInAFragmentNameTheAppFileAndLine() throws Exception {
        String bad = TWO_LOCAL.replace("  parameters: { count: 5 }\n- name: ping",
                "  parameters: { count: lots }\n- name: ping");
        int line = lineOf(bad, "count: lots");
        FragmentPlan plan = FragmentPlan.read("two.yaml", bad);
        FragmentPlan.Wiring none = new FragmentPlan.Wiring(Map.of(), "0.0.0.0");
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> plan.load("a", none, List.of(), List.of()));
        assertEquals(new SourceLocation("two.yaml", line), e.location(), e.getMessage());
        assertEquals("two.yaml:" + line + ": CountSchedulingTerm 'a_tx/_CountSchedulingTerm_2': parameter 'count': "
                + "expected an integer, got 'lots'", e.getMessage());

        // in a queue the fragment retypes for its link: the copy keeps the app's lines
        String transmitter = "  type: DoubleBufferTransmitter\n  parameters: { capacity: 1, policy: 2";
        Path app = Files.writeString(dir.resolve("ping.yaml"), Files.readString(APPS.resolve("fragments-ping.yaml"))
                .replace(transmitter, transmitter + ", colour: red"));
        int colour = lineOf(Files.readString(app), "colour: red");
        FragmentPlan ping = FragmentPlan.read(app);
        GraphLoadException tx = assertThrows(GraphLoadException.class,
                () -> ping.load("tx", WIRING, List.of(), List.of()));
        assertEquals(new SourceLocation(app.toString(), colour), tx.location(), tx.getMessage());
        assertTrue(tx.getMessage().startsWith(app + ":" + colour + ": unknown parameter 'colour' for UcxTransmitter "
                + "'tx/out'"), tx.getMessage());
    }

    @TempDir
    Path dir;

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

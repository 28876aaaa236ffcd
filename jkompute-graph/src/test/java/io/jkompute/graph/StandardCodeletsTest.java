package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.std.BlockMemoryPool;
import io.jkompute.graph.std.SamplePingRx;
import io.jkompute.graph.std.TestStepCount;
import io.jkompute.graph.std.Synchronization;
import io.jkompute.graph.std.Vault;
import io.jkompute.graph.testing.Recorder;
import io.jkompute.graph.testing.TensorSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GXF's standard codelets: Broadcast, Gather, Forward, Vault, Synchronization, TensorCopier; its sample PingTx/PingRx and test::StepCount. */
class StandardCodeletsTest {
    @TempDir
    Path dir;

    static final String GREEDY = """
            ---
            name: sched
            components:
            - { name: clock, type: ManualClock }
            - { type: GreedyScheduler, parameters: { clock: clock, max_duration_ms: 30000 } }
            """;

    static String seqTx(String name, int count, String extraParams) {
        return """
                ---
                name: %s
                components:
                - { name: out, type: DoubleBufferTransmitter }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: out } }
                - { type: CountSchedulingTerm, parameters: { count: %d } }
                - { name: seq, type: JavaCodelet, parameters: { codelet_name: io.jkompute.graph.testing.SeqTx, codelet_params: { transmitter: out%s } } }
                """.formatted(name, count, extraParams);
    }

    static String recorder(String name) {
        return """
                ---
                name: %s
                components:
                - { name: in, type: DoubleBufferReceiver }
                - { type: MessageAvailableSchedulingTerm, parameters: { receiver: in } }
                - { name: rec, type: JavaCodelet, parameters: { codelet_name: io.jkompute.graph.testing.Recorder, codelet_params: { receiver: in } } }
                """.formatted(name);
    }

    static String connect(String source, String target) {
        return "---\ncomponents:\n- { type: Connection, parameters: { source: " + source + ", target: " + target + " } }\n";
    }

    Graph load(String yaml) throws Exception {
        Path f = Files.createTempFile(dir, "graph", ".yaml");
        Files.writeString(f, "%YAML 1.2\n" + yaml);
        return Graph.load(f);
    }

    static List<Long> acqtimes(Graph g, String entity) {
        return List.copyOf(Graphs.codelet(g, entity + "/rec", Recorder.class).acqtimes);
    }

    static String broadcastEntity(String mode) {
        return """
                ---
                name: fan
                components:
                - { name: input, type: DoubleBufferReceiver }
                - { name: split, type: nvidia::gxf::Broadcast, parameters: { source: input, mode: %s } }
                - { name: o1, type: DoubleBufferTransmitter }
                - { name: o2, type: DoubleBufferTransmitter }
                - { name: o3, type: DoubleBufferTransmitter }
                - { type: MessageAvailableSchedulingTerm, parameters: { receiver: input } }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: o1 } }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: o2 } }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: o3 } }
                """.formatted(mode);
    }

    @Test
    void broadcastSendsEveryMessageObjectToEveryTransmitterInOrder() throws Exception {
        String yaml = seqTx("tx", 20, "") + broadcastEntity("Broadcast") + recorder("r1") + recorder("r2")
                + recorder("r3") + connect("tx/out", "fan/input") + connect("fan/o1", "r1/in")
                + connect("fan/o2", "r2/in") + connect("fan/o3", "r3/in") + GREEDY;
        try (Graph g = load(yaml)) {
            g.run();
            List<Long> expected = new ArrayList<>();
            for (long i = 1; i <= 20; i++) {
                expected.add(i);
            }
            for (String r : List.of("r1", "r2", "r3")) {
                assertEquals(expected, acqtimes(g, r), r);
            }
            assertEquals(20, g.entity("fan").tickCount());
            List<Message> m1 = Graphs.codelet(g, "r1/rec", Recorder.class).messages;
            List<Message> m3 = Graphs.codelet(g, "r3/rec", Recorder.class).messages;
            for (int i = 0; i < 20; i++) {
                assertSame(m1.get(i), m3.get(i), "one message object, no copies");
            }
        }
    }

    @Test
    void roundRobinDealsMessagesInTurn() throws Exception {
        String yaml = seqTx("tx", 9, "") + broadcastEntity("RoundRobin").replaceAll(
                "- \\{ type: DownstreamReceptiveSchedulingTerm.*\\n", "")
                + recorder("r1") + recorder("r2") + recorder("r3") + connect("tx/out", "fan/input")
                + connect("fan/o1", "r1/in") + connect("fan/o2", "r2/in") + connect("fan/o3", "r3/in") + GREEDY;
        try (Graph g = load(yaml)) {
            g.run();
            assertEquals(List.of(1L, 4L, 7L), acqtimes(g, "r1"));
            assertEquals(List.of(2L, 5L, 8L), acqtimes(g, "r2"));
            assertEquals(List.of(3L, 6L, 9L), acqtimes(g, "r3"));
            assertEquals(9, g.entity("fan").tickCount());
        }
    }

    @Test
    void broadcastWithoutTransmittersIsALoadError() {
        String yaml = """
                ---
                name: fan
                components:
                - { name: input, type: DoubleBufferReceiver }
                - { name: split, type: Broadcast, parameters: { source: input } }
                """ + GREEDY;
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> load(yaml).close());
        assertTrue(e.getMessage().contains("entity 'fan' has no transmitter to broadcast to"), e.getMessage());
    }

    @Test
    void gatherTakesEachReceiverInDeclarationOrderUpToTheLimit() throws Exception {
        String gather = """
                ---
                name: gather
                components:
                - { name: a, type: DoubleBufferReceiver, parameters: { capacity: 4 } }
                - { name: b, type: DoubleBufferReceiver, parameters: { capacity: 4 } }
                - { name: out, type: DoubleBufferTransmitter, parameters: { capacity: 8 } }
                - { type: MultiMessageAvailableSchedulingTerm, parameters: { receivers: [a, b], sampling_mode: PerReceiver, min_sizes: [4, 4] } }
                - { name: g, type: Gather, parameters: { sink: out, tick_source_limit: %d } }
                ---
                name: rx
                components:
                - { name: in, type: DoubleBufferReceiver, parameters: { capacity: 8 } }
                - { type: MessageAvailableSchedulingTerm, parameters: { receiver: in, min_size: 8 } }
                - { name: rec, type: JavaCodelet, parameters: { codelet_name: io.jkompute.graph.testing.Recorder, codelet_params: { receiver: in, drain: true } } }
                """;
        String common = connect("ta/out", "gather/a") + connect("tb/out", "gather/b") + connect("gather/out", "rx/in")
                + GREEDY;
        String senders = seqTx("ta", 4, "").replace("{ name: out, type: DoubleBufferTransmitter }",
                "{ name: out, type: DoubleBufferTransmitter, parameters: { capacity: 4 } }")
                + seqTx("tb", 4, ", offset: 100").replace("{ name: out, type: DoubleBufferTransmitter }",
                "{ name: out, type: DoubleBufferTransmitter, parameters: { capacity: 4 } }");
        try (Graph g = load(senders + gather.formatted(0) + common)) {
            g.run();
            assertEquals(List.of(1L, 2L, 3L, 4L, 101L, 102L, 103L, 104L), acqtimes(g, "rx"));
            assertEquals(1, g.entity("gather").tickCount());
        }
        // with a limit of 1 per receiver the one tick moves a's oldest, then b's oldest
        try (Graph g = load(senders + gather.formatted(1).replace("min_size: 8", "min_size: 2") + common)) {
            g.run();
            assertEquals(List.of(1L, 101L), acqtimes(g, "rx"));
        }
    }

    @Test
    void forwardPassesMessagesOnInOrder() throws Exception {
        String yaml = seqTx("tx", 10, "") + """
                ---
                name: fwd
                components:
                - { name: in, type: DoubleBufferReceiver }
                - { name: out, type: DoubleBufferTransmitter }
                - { type: MessageAvailableSchedulingTerm, parameters: { receiver: in } }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: out } }
                - { name: f, type: Forward, parameters: { in: in, out: out } }
                """ + recorder("rx") + connect("tx/out", "fwd/in") + connect("fwd/out", "rx/in") + GREEDY;
        try (Graph g = load(yaml)) {
            g.run();
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L), acqtimes(g, "rx"));
            assertEquals(10, g.entity("fwd").tickCount());
        }
    }

    static String vault(boolean drop) {
        return seqTx("tx", 10, "") + """
                ---
                name: vault
                components:
                - { name: in, type: DoubleBufferReceiver }
                - { type: MessageAvailableSchedulingTerm, parameters: { receiver: in } }
                - { name: v, type: Vault, parameters: { source: in, max_waiting_count: 4, drop_waiting: %s } }
                """.formatted(drop) + connect("tx/out", "vault/in") + GREEDY;
    }

    static List<Long> take(Vault v, int n) throws InterruptedException {
        List<Long> out = new ArrayList<>();
        for (Message m : v.storeBlocking(n, 1, TimeUnit.SECONDS)) {
            out.add(m.timestamp().acqtime());
            m.release();
        }
        return out;
    }

    @Test
    void vaultHoldsBackWhenFullUntilOutsideCodeTakes() throws Exception {
        // GXF's semantics: a full vault without drop_waiting stops taking from its source, so tx is held back by
        // its downstream term, until code outside the graph takes what waits
        try (Graph g = load(vault(false))) {
            g.runAsync();
            Vault v = g.component("vault/v", Vault.class);
            List<Long> got = new ArrayList<>(take(v, 4));
            assertEquals(List.of(1L, 2L, 3L, 4L), got);
            while (got.size() < 10) {
                List<Long> batch = take(v, 1);
                assertEquals(1, batch.size(), "the vault went quiet after " + got);
                got.addAll(batch);
                assertTrue(v.waitingCount() <= 4, "more than max_waiting_count waiting: " + v.waitingCount());
            }
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L), got);
            assertEquals(StopReason.COMPLETED, g.await(10, TimeUnit.SECONDS).reason());
            assertEquals(0, v.droppedCount());
            assertEquals(10, g.entity("tx").tickCount());
        }
    }

    @Test
    void vaultWithDropWaitingKeepsTheNewest() throws Exception {
        try (Graph g = load(vault(true))) {
            g.run();
            Vault v = g.component("vault/v", Vault.class);
            assertEquals(List.of(7L, 8L, 9L, 10L), take(v, 4));
            assertEquals(6, v.droppedCount());
        }
    }

    @Test
    void synchronizationPairsEqualAcqtimesAndDropsTheUnmatched() throws Exception {
        String yaml = seqTx("ta", 6, "") + seqTx("tb", 3, ", step: 2") + """
                ---
                name: sync
                components:
                - { name: a, type: DoubleBufferReceiver }
                - { name: b, type: DoubleBufferReceiver }
                - { name: oa, type: DoubleBufferTransmitter }
                - { name: ob, type: DoubleBufferTransmitter }
                - { type: MultiMessageAvailableSchedulingTerm, parameters: { receivers: [a, b], sampling_mode: PerReceiver, min_sizes: [1, 1] } }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: oa } }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: ob } }
                - { name: s, type: Synchronization, parameters: { inputs: [a, b], outputs: [oa, ob] } }
                """ + recorder("ra") + recorder("rb") + connect("ta/out", "sync/a") + connect("tb/out", "sync/b")
                + connect("sync/oa", "ra/in") + connect("sync/ob", "rb/in") + GREEDY;
        try (Graph g = load(yaml)) {
            g.run();
            assertEquals(List.of(2L, 4L, 6L), acqtimes(g, "ra"));
            assertEquals(List.of(2L, 4L, 6L), acqtimes(g, "rb"));
            assertEquals(3, g.component("sync/s", Synchronization.class).droppedCount());
        }
    }

    @Test
    void synchronizationWithAThresholdMatchesNearTimes() throws Exception {
        String yaml = seqTx("ta", 4, ", step: 10") + seqTx("tb", 4, ", step: 10, offset: 3") + """
                ---
                name: sync
                components:
                - { name: a, type: DoubleBufferReceiver }
                - { name: b, type: DoubleBufferReceiver }
                - { name: oa, type: DoubleBufferTransmitter }
                - { name: ob, type: DoubleBufferTransmitter }
                - { type: MultiMessageAvailableSchedulingTerm, parameters: { receivers: [a, b], sampling_mode: PerReceiver, min_sizes: [1, 1] } }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: oa } }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: ob } }
                - { name: s, type: Synchronization, parameters: { inputs: [a, b], outputs: [oa, ob], sync_threshold: 5 } }
                """ + recorder("ra") + recorder("rb") + connect("ta/out", "sync/a") + connect("tb/out", "sync/b")
                + connect("sync/oa", "ra/in") + connect("sync/ob", "rb/in") + GREEDY;
        try (Graph g = load(yaml)) {
            g.run();
            assertEquals(List.of(10L, 20L, 30L, 40L), acqtimes(g, "ra"));
            assertEquals(List.of(13L, 23L, 33L, 43L), acqtimes(g, "rb"));
            assertEquals(0, g.component("sync/s", Synchronization.class).droppedCount());
        }
    }

    @Test
    void synchronizationNeedsAsManyOutputsAsInputs() {
        String yaml = """
                ---
                name: sync
                components:
                - { name: a, type: DoubleBufferReceiver }
                - { name: b, type: DoubleBufferReceiver }
                - { name: oa, type: DoubleBufferTransmitter }
                - { name: s, type: Synchronization, parameters: { inputs: [a, b], outputs: [oa] } }
                """ + GREEDY;
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> load(yaml).close());
        assertTrue(e.getMessage().contains("2 inputs, 1 outputs"), e.getMessage());
    }

    static String copier(String name, int mode, String allocator) {
        return """
                ---
                name: %s
                components:
                - { name: in, type: DoubleBufferReceiver }
                - { name: out, type: DoubleBufferTransmitter }
                %s
                - { type: MessageAvailableSchedulingTerm, parameters: { receiver: in } }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: out } }
                - { name: copy, type: nvidia::gxf::TensorCopier, parameters: { receiver: in, transmitter: out, allocator: pool, mode: %d } }
                """.formatted(name, allocator, mode);
    }

    static final String SOURCE = """
            ---
            name: src
            components:
            - { name: out, type: DoubleBufferTransmitter }
            - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: out } }
            - { type: CountSchedulingTerm, parameters: { count: 5 } }
            - { name: gen, type: JavaCodelet, parameters: { codelet_name: io.jkompute.graph.testing.TensorSource, codelet_params: { transmitter: out } } }
            ---
            name: sink
            components:
            - { name: in, type: DoubleBufferReceiver }
            - { type: MessageAvailableSchedulingTerm, parameters: { receiver: in } }
            - { name: rec, type: JavaCodelet, parameters: { codelet_name: io.jkompute.graph.testing.TensorSink, codelet_params: { receiver: in } } }
            """;

    static void assertValues(TensorSink sink) {
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), sink.acqtimes);
        for (int i = 0; i < 5; i++) {
            float n = i + 1;
            assertEquals(List.of(n, n + 0.5f, n + 1), floats(sink.values.get(i)));
        }
    }

    static List<Float> floats(float[] a) {
        List<Float> out = new ArrayList<>();
        for (float f : a) {
            out.add(f);
        }
        return out;
    }

    @Test
    void tensorCopierCopiesToHostAndSystemMemory() throws Exception {
        String yaml = SOURCE + copier("to_host", 1, "- { name: pool, type: BlockMemoryPool, parameters: { storage_type: 0, block_size: 64, num_blocks: 2 } }")
                + copier("to_system", 2, "- { name: pool, type: UnboundedAllocator }")
                + connect("src/out", "to_host/in") + connect("to_host/out", "to_system/in")
                + connect("to_system/out", "sink/in") + GREEDY;
        try (Graph g = load(yaml)) {
            g.run();
            TensorSink sink = Graphs.codelet(g, "sink/rec", TensorSink.class);
            assertValues(sink);
            assertEquals(List.of(StorageType.SYSTEM, StorageType.SYSTEM, StorageType.SYSTEM, StorageType.SYSTEM,
                    StorageType.SYSTEM), sink.storages);
            assertEquals(2, g.component("to_host/pool", BlockMemoryPool.class).freeBlocks(), "host copies returned");
        }
    }

    @Test
    void tensorCopierRoundTripsThroughAVulkanDevice() throws Exception {
        Assumptions.assumeTrue(AppsTest.vulkanAvailable(), "no Vulkan device (install mesa-vulkan-drivers)");
        String yaml = """
                ---
                name: gpu
                components:
                - { name: device, type: VulkanDevice }
                """ + SOURCE
                + copier("to_device", 0, "- { name: pool, type: BlockMemoryPool, parameters: { storage_type: 1, block_size: 64, num_blocks: 2, device: gpu/device } }")
                + copier("to_host", 1, "- { name: pool, type: UnboundedAllocator }")
                + connect("src/out", "to_device/in") + connect("to_device/out", "to_host/in")
                + connect("to_host/out", "sink/in") + GREEDY;
        try (Graph g = load(yaml)) {
            g.run();
            TensorSink sink = Graphs.codelet(g, "sink/rec", TensorSink.class);
            assertValues(sink);
            assertFalse(sink.storages.contains(StorageType.DEVICE));
            assertEquals(2, g.component("to_device/pool", BlockMemoryPool.class).freeBlocks(), "device blocks returned");
        }
    }

    static String samplePingTx(int count, String clock) {
        return """
                ---
                name: tx
                components:
                - { name: signal, type: nvidia::gxf::DoubleBufferTransmitter }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: signal } }
                - { type: CountSchedulingTerm, parameters: { count: %d } }
                - { type: PeriodicSchedulingTerm, parameters: { recess_period: 1000 } }
                - { name: ping, type: nvidia::gxf::PingTx, parameters: { signal: signal%s } }
                """.formatted(count, clock == null ? "" : ", clock: " + clock);
    }

    @Test
    void gxfSamplePingTxStampsWithItsClockOrZero() throws Exception {
        for (String clock : new String[] {"sched/clock", null}) {
            try (Graph g = load(samplePingTx(4, clock) + recorder("r") + connect("tx/signal", "r/in") + GREEDY)) {
                g.run();
                // ticks at 0, 1000, 2000, 3000 ns of the manual clock; without a clock GXF's PingTx stamps 0
                assertEquals(clock == null ? List.of(0L, 0L, 0L, 0L) : List.of(0L, 1000L, 2000L, 3000L),
                        acqtimes(g, "r"), String.valueOf(clock));
            }
        }
    }

    @Test
    void gxfSamplePingRxTakesOneMessagePerTickAndFailsOnNone() throws Exception {
        String rx = """
                ---
                name: rx
                components:
                - { name: signal, type: DoubleBufferReceiver }
                - { type: MessageAvailableSchedulingTerm, parameters: { receiver: signal, min_size: 1 } }
                - { name: ping, type: nvidia::gxf::PingRx, parameters: { signal: signal } }
                """;
        try (Graph g = load(samplePingTx(5, null) + rx + connect("tx/signal", "rx/signal") + GREEDY)) {
            g.run();
            assertEquals(5, g.entity("rx").tickCount());
            assertEquals(5, g.component("rx/ping", SamplePingRx.class).received());
        }
        String alone = rx.replace("- { type: MessageAvailableSchedulingTerm, parameters: { receiver: signal, min_size: 1 } }\n",
                "- { type: CountSchedulingTerm, parameters: { count: 1 } }\n");
        try (Graph g = load(alone + GREEDY)) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            assertEquals("codelet 'rx/ping' (PingRx) failed in tick(): IllegalStateException: no message in "
                    + "'rx/signal' at tick 1", e.getMessage());
        }
    }

    @Test
    void gxfTestStepCountChecksTheTicksOfItsEntityInStop() throws Exception {
        String counted = samplePingTx(3, null).replace("- { name: ping,",
                "- { name: steps, type: nvidia::gxf::test::StepCount, parameters: { expected_count: %d } }\n- { name: ping,");
        try (Graph g = load(counted.formatted(3) + recorder("r") + connect("tx/signal", "r/in") + GREEDY)) {
            g.run();
            assertEquals(3, g.component("tx/steps", TestStepCount.class).ticks());
        }
        try (Graph g = load(counted.formatted(4) + recorder("r") + connect("tx/signal", "r/in") + GREEDY)) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            assertEquals("codelet 'tx/steps' (test::StepCount) failed in stop(): IllegalStateException: ticked 3 "
                    + "times after 1 start(s); expected 4 ticks after 1", e.getMessage());
        }
    }
}

package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.DataType;
import io.jkompute.graph.std.BlockMemoryPool;
import io.jkompute.graph.std.UnboundedAllocator;
import io.jkompute.graph.testing.Recorder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Message reference counting, pool blocks, leak reclaiming, and graphs built with the Java API. */
class MessageAndJavaApiTest {

    private static Graph graphWithPool(int blocks) {
        Graph g = Graph.create();
        Entity e = g.addEntity("mem");
        Component pool = e.add("BlockMemoryPool", "pool");
        g.setParameter(pool, "block_size", 64L);
        g.setParameter(pool, "num_blocks", (long) blocks);
        g.activate();
        return g;
    }

    @Test
    void replaceGivesTheOldComponentsMemoryBackAndKeepsItsName() {
        try (Graph g = graphWithPool(2)) {
            BlockMemoryPool pool = g.component("mem/pool", BlockMemoryPool.class);
            HostTensor first = HostTensor.allocate(pool, DataType.FLOAT32, 16);
            Message m = Message.create().add("t", first);
            HostTensor second = HostTensor.allocate(pool, DataType.INT32, 4);
            assertEquals(0, pool.freeBlocks());
            m.replace(first, second);
            assertEquals(1, pool.freeBlocks(), "the replaced tensor's block is back");
            assertSame(second, m.get(GraphTensor.class, "t"));
            assertEquals(List.of("t"), m.names());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.replace(first, second));
            assertTrue(e.getMessage().contains("is not a component"), e.getMessage());
            m.release();
            assertEquals(2, pool.freeBlocks());
        }
    }

    @Test
    void blocksReturnWhenTheLastReferenceGoes() {
        try (Graph g = graphWithPool(2)) {
            BlockMemoryPool pool = g.component("mem/pool", BlockMemoryPool.class);
            Message m = Message.create().add("t", HostTensor.allocate(pool, DataType.FLOAT32, 16));
            assertEquals(1, pool.freeBlocks());
            m.retain();
            m.release();
            assertEquals(1, pool.freeBlocks(), "one reference is left");
            m.release();
            assertEquals(2, pool.freeBlocks());
            IllegalStateException twice = assertThrows(IllegalStateException.class, m::release);
            assertTrue(twice.getMessage().startsWith("message released more often than retained"), twice.getMessage());
            assertThrows(IllegalStateException.class, () -> m.add("x", 1));
        }
    }

    @Test
    void poolRefusesOversizedAndExhaustedRequests() {
        try (Graph g = graphWithPool(1)) {
            BlockMemoryPool pool = g.component("mem/pool", BlockMemoryPool.class);
            IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                    () -> HostTensor.allocate(pool, DataType.FLOAT32, 17));
            assertEquals("mem/pool: request of 68 bytes exceeds block_size 64", big.getMessage());
            HostTensor t = HostTensor.allocate(pool, DataType.FLOAT32, 16);
            IllegalStateException none = assertThrows(IllegalStateException.class,
                    () -> HostTensor.allocate(pool, DataType.FLOAT32, 16));
            assertEquals("mem/pool: all 1 blocks are in use; add a MemoryAvailableSchedulingTerm or raise num_blocks",
                    none.getMessage());
            t.close();
            t.close();
            assertEquals(1, pool.freeBlocks(), "closing twice is harmless");
        }
    }

    @Test
    void aMessageLostWithoutReleaseIsReclaimedByTheCleaner() throws InterruptedException {
        try (Graph g = graphWithPool(1)) {
            BlockMemoryPool pool = g.component("mem/pool", BlockMemoryPool.class);
            dropUnreleased(pool);
            for (int i = 0; i < 200 && pool.freeBlocks() == 0; i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertEquals(1, pool.freeBlocks());
        }
    }

    private static void dropUnreleased(Allocator pool) {
        Message.create().add("t", HostTensor.allocate(pool, DataType.FLOAT32, 4));
    }

    @Test
    void messageComponentsByTypeAndName() {
        UnboundedAllocator a = new UnboundedAllocator();
        HostTensor t1 = HostTensor.of(new float[] {1, 2, 3});
        HostTensor t2 = HostTensor.of(new float[] {4, 5}, 2, 1);
        Message m = Message.create().add("host_tensor", t1).add("host_tensor", t2).add("meta", Map.of("k", 1));
        assertEquals(List.of(t1, t2), m.findAll(GraphTensor.class));
        assertSame(t1, m.get(HostTensor.class, "host_tensor"));
        assertEquals(Map.of("k", 1), m.get(Map.class, "meta"));
        assertEquals(List.of("host_tensor", "host_tensor", "meta"), m.names());
        assertEquals(List.of(4f, 5f), List.of(t2.toFloatArray()[0], t2.toFloatArray()[1]));
        assertTrue(a.isAvailable(1L << 40));
        m.release();
    }

    @Test
    void componentsByPlaceKeepTheirPlaceWhenReplaced() {
        HostTensor t1 = HostTensor.of(new float[] {1});
        HostTensor t2 = HostTensor.of(new float[] {2});
        HostTensor t3 = HostTensor.of(new float[] {3});
        Message m = Message.create().add("meta", 7L).add("a", t1).add("b", t2);
        assertEquals(1, m.indexOf(GraphTensor.class, null, 0));
        assertEquals(2, m.indexOf(GraphTensor.class, null, 2));
        assertEquals(-1, m.indexOf(GraphTensor.class, null, 3));
        assertEquals(2, m.indexOf(GraphTensor.class, "b", 0));
        assertEquals(-1, m.indexOf(GraphTensor.class, "meta", 0), "a component of another type is not found");
        assertEquals(0, m.indexOf(Long.class, "meta", -5));
        m.replace(t2, t3);
        assertSame(t3, m.component(2));
        assertEquals(2, m.indexOf(GraphTensor.class, "b", 0));
        assertThrows(IndexOutOfBoundsException.class, () -> m.component(3));
        assertThrows(IndexOutOfBoundsException.class, () -> m.component(-1));
        m.release();
    }

    @Test
    void settingTheTimestampReplacesItAndPutsItLast() {
        Message m = Message.create().add("seq", 7L);
        m.setTimestamp(new Timestamp(1, 2));
        m.setTimestamp(new Timestamp(3, 4)); // the usual republish: the only timestamp, already last
        assertEquals(List.of("seq", "timestamp"), m.names());
        assertEquals(new Timestamp(3, 4), m.timestamp());
        m.add("note", "x");
        m.setTimestamp(new Timestamp(5, 6)); // not last any more: removed and appended, as GXF's publish does
        assertEquals(List.of("seq", "note", "timestamp"), m.names());
        m.add("timestamp", new Timestamp(9, 9)); // a second one by hand: both go, one new one is appended
        m.setTimestamp(new Timestamp(7, 8));
        assertEquals(List.of("seq", "note", "timestamp"), m.names());
        assertEquals(List.of(new Timestamp(7, 8)), m.findAll(Timestamp.class));
        assertEquals(7L, m.get(Long.class, "seq"));
        m.release();
    }

    @Test
    void graphBuiltWithTheJavaApi() {
        try (Graph g = Graph.create()) {
            Entity sched = g.addEntity("sched");
            Component clock = sched.add("ManualClock", "clock");
            g.setParameter(sched.add("GreedyScheduler", "s"), "clock", clock);

            Entity tx = g.addEntity("tx");
            Component out = tx.add("DoubleBufferTransmitter", "out");
            g.setParameter(tx.add("PeriodicSchedulingTerm", "period"), "recess_period", "1ms");
            g.setParameter(tx.add("CountSchedulingTerm", "count"), "count", 3L);
            Component seq = tx.add("JavaCodelet", "seq");
            g.setParameter(seq, "codelet_name", "io.jkompute.graph.testing.SeqTx");
            g.setParameter(seq, "codelet_params", Map.of("transmitter", "out", "acqtime", "clock"));

            Entity rx = g.addEntity("rx");
            Component in = rx.add("nvidia::gxf::DoubleBufferReceiver", "in");
            g.setParameter(rx.add("MessageAvailableSchedulingTerm", "avail"), "receiver", "in");
            Component rec = rx.add("JavaCodelet", "rec");
            g.setParameter(rec, "codelet_name", "io.jkompute.graph.testing.Recorder");
            g.setParameter(rec, "codelet_params", "receiver: in");

            Component link = g.addEntity("links").add("Connection", "c");
            g.setParameter(link, "source", out);
            g.setParameter(link, "target", in);

            RunResult r = g.run();
            assertEquals(List.of(0L, 1_000_000L, 2_000_000L), Graphs.codelet(g, "rx/rec", Recorder.class).acqtimes);
            assertEquals(StopReason.COMPLETED, r.reason());
            assertThrows(IllegalStateException.class, () -> g.addEntity("late"), "fixed after activation");
        }
    }

    /** Publishes one message and keeps a reference of its own to it. */
    static final class KeepingTx extends Codelet {
        Transmitter out;
        Message sent;

        @Override
        protected void tick() {
            sent = Message.create().retain();
            out.publish(sent);
        }
    }

    /**
     * After delivery each receiver's queue holds exactly one reference: the only receiver takes over the
     * transmitter's, the others get their own. The tick's reference is gone, the test's retain is left.
     */
    @Test
    void everyReceiverQueueHoldsOneReference() {
        for (int receivers : new int[] {1, 3}) {
            try (Graph g = Graph.create()) {
                Entity sched = g.addEntity("sched");
                g.setParameter(sched.add("GreedyScheduler", "scheduler"), "clock", sched.add("ManualClock", "clock"));
                Entity tx = g.addEntity("tx");
                Transmitter out = (Transmitter) tx.add("DoubleBufferTransmitter", "out");
                g.setParameter(tx.add("CountSchedulingTerm", "count"), "count", 1L);
                KeepingTx codelet = tx.add(new KeepingTx(), "tx");
                codelet.out = out;
                for (int i = 0; i < receivers; i++) {
                    Entity rx = g.addEntity("rx" + i);
                    Receiver in = (Receiver) rx.add("DoubleBufferReceiver", "in");
                    // count 0: rx stops at once and never takes the message, which stays in its queue
                    g.setParameter(rx.add("CountSchedulingTerm", "count"), "count", 0L);
                    rx.add(new Codelet() {
                        @Override
                        protected void tick() {
                        }
                    }, "idle");
                    Component link = g.addEntity("link" + i).add("Connection", "c");
                    g.setParameter(link, "source", out);
                    g.setParameter(link, "target", in);
                }
                g.run();
                for (int i = 0; i < receivers; i++) {
                    Receiver in = g.component("rx" + i + "/in", Receiver.class);
                    assertEquals(1, in.size() + in.backSize(), "rx" + i);
                }
                assertEquals(1 + receivers, codelet.sent.refCount(), receivers + " receivers");
                codelet.sent.release();
                assertEquals(receivers, codelet.sent.refCount());
            }
        }
    }
}

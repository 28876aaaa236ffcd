package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The schedulers' stop paths and their workers: every way a run ends (all done, deadlock, max_duration_ms with busy
 * or idle entities, a failing codelet, an interrupt) ends it, with every worker gone, under a preemptive timeout;
 * several independent tx → rx pairs on 1, 2 and 4 workers deliver every message once and in order.
 */
class WorkerSchedulerTest {
    private static final Duration LIMIT = Duration.ofSeconds(20);

    /** Publishes 0, 1, 2, ... one per tick. */
    static final class Tx extends Codelet {
        Transmitter out;
        long next;
        /** When set: the id of the thread that ran tick i, for the first ticks. */
        long[] threads;

        @Override
        protected void tick() {
            if (threads != null && next < threads.length) {
                threads[(int) next] = Thread.currentThread().threadId();
            }
            out.publish(Message.create().add("seq", next++));
        }
    }

    /** Takes one message per tick and checks its number; throws at message {@code failAt} when asked to. */
    static final class Rx extends Codelet {
        Receiver in;
        long n;
        long failAt = -1;
        volatile String wrong;
        long[] threads;

        @Override
        protected void tick() {
            if (threads != null && n < threads.length) {
                threads[(int) n] = Thread.currentThread().threadId();
            }
            Message m = in.receive();
            Long seq = m == null ? null : m.get(Long.class, "seq");
            if (wrong == null && (seq == null || seq != n)) {
                wrong = "message " + n + " arrived as " + seq;
            }
            if (n == failAt) {
                throw new IllegalStateException("boom at " + n);
            }
            n++;
        }
    }

    /** A graph of {@code pairs} independent tx → rx pairs; a count ≤ 0 leaves that side unbounded. */
    private record Pairs(Graph graph, List<Rx> rx, List<Tx> tx) {
    }

    private static Pairs pairs(String scheduler, int pairs, int capacity, long txCount, long rxCount, String... params) {
        Graph g = Graph.create();
        Entity sched = g.addEntity("sched");
        Component clock = sched.add("RealtimeClock", "clock");
        String[] kind = scheduler.split(":");
        Component s = sched.add(kind[0], "scheduler");
        g.setParameter(s, "clock", clock);
        if (kind.length > 1) {
            g.setParameter(s, "worker_thread_number", Long.parseLong(kind[1]));
        }
        for (int i = 0; i < params.length; i += 2) {
            Object v = params[i + 1].equals("false") ? (Object) Boolean.FALSE : (Object) Long.parseLong(params[i + 1]);
            g.setParameter(s, params[i], v);
        }
        List<Rx> rxs = new ArrayList<>();
        List<Tx> txs = new ArrayList<>();
        for (int p = 0; p < pairs; p++) {
            Entity tx = g.addEntity("tx" + p);
            Transmitter out = (Transmitter) tx.add("DoubleBufferTransmitter", "out");
            g.setParameter(out, "capacity", (long) capacity);
            g.setParameter(tx.add("DownstreamReceptiveSchedulingTerm", "room"), "transmitter", out);
            if (txCount > 0) {
                g.setParameter(tx.add("CountSchedulingTerm", "count"), "count", txCount);
            }
            Tx t = new Tx();
            t.out = out;
            tx.add(t, "ping");
            txs.add(t);
            Entity rx = g.addEntity("rx" + p);
            Receiver in = (Receiver) rx.add("DoubleBufferReceiver", "in");
            g.setParameter(in, "capacity", (long) capacity);
            g.setParameter(rx.add("MessageAvailableSchedulingTerm", "avail"), "receiver", in);
            if (rxCount > 0) {
                g.setParameter(rx.add("CountSchedulingTerm", "count"), "count", rxCount);
            }
            Rx r = new Rx();
            r.in = in;
            rx.add(r, "pong");
            rxs.add(r);
            Component link = g.addEntity("link" + p).add("Connection", "c");
            g.setParameter(link, "source", out);
            g.setParameter(link, "target", in);
        }
        return new Pairs(g, rxs, txs);
    }

    private static final String[] ALL = {"GreedyScheduler", "MultiThreadScheduler:1", "MultiThreadScheduler:2",
            "MultiThreadScheduler:4", "EventBasedScheduler:1", "EventBasedScheduler:2", "EventBasedScheduler:4"};

    private static int workerThreads() {
        int n = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("jkompute-graph-worker-") && t.isAlive()) {
                n++;
            }
        }
        return n;
    }

    private static void noWorkerLeft() {
        assertEquals(0, workerThreads(), "every worker thread ended with the run");
    }

    @ParameterizedTest
    @ValueSource(strings = {"GreedyScheduler", "MultiThreadScheduler:1", "MultiThreadScheduler:2",
            "MultiThreadScheduler:4", "EventBasedScheduler:1", "EventBasedScheduler:2", "EventBasedScheduler:4"})
    void everyPairDeliversExactCountsInOrder(String scheduler) {
        assertTimeoutPreemptively(LIMIT, () -> {
            for (int capacity : new int[] {1, 64}) {
                Pairs p = pairs(scheduler, 4, capacity, 20_000, 20_000);
                try (Graph g = p.graph()) {
                    RunResult r = g.run();
                    assertEquals(StopReason.COMPLETED, r.reason(), r.toString());
                    for (int i = 0; i < 4; i++) {
                        assertNull(p.rx().get(i).wrong, "pair " + i);
                        assertEquals(20_000, p.rx().get(i).n, "pair " + i);
                        assertEquals(20_000, g.entity("tx" + i).tickCount());
                        assertEquals(20_000, g.entity("rx" + i).tickCount());
                    }
                }
            }
            noWorkerLeft();
        });
    }

    /**
     * Affinity: 4 independent pairs on 2 workers, each worker the home of 2 whole pairs. Nearly every tick of a
     * pair's tx and rx must run on one thread (a worker takes another's entity only when none of its own ran in a
     * pass, which never happens while its unbounded pairs of capacity 64 always have a tick to do, whatever the
     * load). Without affinity both workers scanned every entity and a pair moved between them from pass to pass: 65–70%
     * of its ticks ran on one thread on a 2-vCPU machine.
     */
    @ParameterizedTest
    @ValueSource(strings = {"MultiThreadScheduler:2", "EventBasedScheduler:2"})
    void connectedEntitiesStayOnOneWorker(String scheduler) {
        assertTimeoutPreemptively(LIMIT, () -> {
            final int recorded = 200_000;
            Pairs p = pairs(scheduler, 4, 64, 0, 0, "max_duration_ms", "300");
            for (int i = 0; i < 4; i++) {
                p.tx().get(i).threads = new long[recorded];
                p.rx().get(i).threads = new long[recorded];
            }
            try (Graph g = p.graph()) {
                RunResult r = g.run();
                assertEquals(StopReason.MAX_DURATION, r.reason(), r.toString());
            }
            for (int i = 0; i < 4; i++) {
                Tx tx = p.tx().get(i);
                Rx rx = p.rx().get(i);
                assertNull(rx.wrong, "pair " + i);
                int txTicks = (int) Math.min(recorded, tx.next);
                int rxTicks = (int) Math.min(recorded, rx.n);
                assertTrue(rxTicks >= 100, "pair " + i + " made progress: " + rxTicks + " messages");
                java.util.Map<Long, Integer> byThread = new java.util.HashMap<>();
                for (int k = 0; k < txTicks; k++) {
                    byThread.merge(tx.threads[k], 1, Integer::sum);
                }
                for (int k = 0; k < rxTicks; k++) {
                    byThread.merge(rx.threads[k], 1, Integer::sum);
                }
                int most = java.util.Collections.max(byThread.values());
                assertTrue(most >= 0.9 * (txTicks + rxTicks), "pair " + i + ": " + most + " of " + (txTicks + rxTicks)
                        + " ticks on one thread " + byThread);
            }
            noWorkerLeft();
        });
    }

    /** Takes one message per tick and passes it on. */
    static final class Relay extends Codelet {
        Receiver in;
        Transmitter out;

        @Override
        protected void tick() {
            out.publish(in.receive());
        }
    }

    /**
     * One chain tx → relay → relay → rx is one connected component, so all of it is one worker's home; the other
     * worker only takes what that one has not claimed. Every message still arrives once and in order.
     */
    @ParameterizedTest
    @ValueSource(strings = {"MultiThreadScheduler:2", "EventBasedScheduler:2", "EventBasedScheduler:4"})
    void aSingleChainOnSeveralWorkersDeliversExactCounts(String scheduler) {
        assertTimeoutPreemptively(LIMIT, () -> {
            final long messages = 20_000;
            for (int capacity : new int[] {1, 64}) {
                try (Graph g = Graph.create()) {
                    Entity sched = g.addEntity("sched");
                    Component clock = sched.add("RealtimeClock", "clock");
                    String[] kind = scheduler.split(":");
                    Component s = sched.add(kind[0], "scheduler");
                    g.setParameter(s, "clock", clock);
                    g.setParameter(s, "worker_thread_number", Long.parseLong(kind[1]));
                    Entity tx = g.addEntity("tx");
                    Transmitter out = (Transmitter) tx.add("DoubleBufferTransmitter", "out");
                    g.setParameter(out, "capacity", (long) capacity);
                    g.setParameter(tx.add("DownstreamReceptiveSchedulingTerm", "room"), "transmitter", out);
                    g.setParameter(tx.add("CountSchedulingTerm", "count"), "count", messages);
                    tx.add(new Tx(), "ping").out = out;
                    Transmitter upstream = out;
                    for (int k = 0; k < 2; k++) {
                        Entity relay = g.addEntity("relay" + k);
                        Receiver in = (Receiver) relay.add("DoubleBufferReceiver", "in");
                        g.setParameter(in, "capacity", (long) capacity);
                        Transmitter next = (Transmitter) relay.add("DoubleBufferTransmitter", "out");
                        g.setParameter(next, "capacity", (long) capacity);
                        g.setParameter(relay.add("MessageAvailableSchedulingTerm", "avail"), "receiver", in);
                        g.setParameter(relay.add("DownstreamReceptiveSchedulingTerm", "room"), "transmitter", next);
                        g.setParameter(relay.add("CountSchedulingTerm", "count"), "count", messages);
                        Relay c = relay.add(new Relay(), "relay");
                        c.in = in;
                        c.out = next;
                        Component link = g.addEntity("link" + k).add("Connection", "c");
                        g.setParameter(link, "source", upstream);
                        g.setParameter(link, "target", in);
                        upstream = next;
                    }
                    Entity rx = g.addEntity("rx");
                    Receiver in = (Receiver) rx.add("DoubleBufferReceiver", "in");
                    g.setParameter(in, "capacity", (long) capacity);
                    g.setParameter(rx.add("MessageAvailableSchedulingTerm", "avail"), "receiver", in);
                    g.setParameter(rx.add("CountSchedulingTerm", "count"), "count", messages);
                    Rx r = new Rx();
                    r.in = in;
                    rx.add(r, "pong");
                    Component link = g.addEntity("link_rx").add("Connection", "c");
                    g.setParameter(link, "source", upstream);
                    g.setParameter(link, "target", in);
                    RunResult result = g.run();
                    assertEquals(StopReason.COMPLETED, result.reason(), result.toString());
                    assertNull(r.wrong);
                    assertEquals(messages, r.n);
                    for (String name : List.of("tx", "relay0", "relay1", "rx")) {
                        assertEquals(messages, g.entity(name).tickCount(), name);
                    }
                }
            }
            noWorkerLeft();
        });
    }

    /** Publishes messages tagged with its source number and 0, 1, 2, ... one per tick. */
    static final class SourceTx extends Codelet {
        Transmitter out;
        long source;
        long next;

        @Override
        protected void tick() {
            out.publish(Message.create().add("source", source).add("seq", next++));
        }
    }

    /** Takes one message per tick and checks that each source's numbers arrive in order. */
    static final class FanInRx extends Codelet {
        Receiver in;
        long[] next;
        long n;
        volatile String wrong;

        @Override
        protected void tick() {
            Message m = in.receive();
            Long source = m == null ? null : m.get(Long.class, "source");
            Long seq = m == null ? null : m.get(Long.class, "seq");
            if (wrong == null && (source == null || seq == null || seq != next[(int) (long) source])) {
                wrong = "tick " + n + ": got " + (m == null ? "nothing" : "source " + source + " message " + seq);
            }
            if (source != null) {
                next[(int) (long) source]++;
            }
            n++;
        }
    }

    /**
     * Fan-in: 3 transmitters on different workers push into one receiver of capacity 4 with the fault policy. Each
     * holds back until there is room for 3 (one message from each source may be on its way at once), so the run
     * overflows only if a transmitter's back-pressure check under-counts the receiver while its owner syncs: the
     * lock-free queue must count a message moving from the back stage to the main stage at least once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"GreedyScheduler", "MultiThreadScheduler:2", "MultiThreadScheduler:4",
            "EventBasedScheduler:2", "EventBasedScheduler:4"})
    void fanInDeliversEverySourceInOrderWithoutOverflow(String scheduler) {
        assertTimeoutPreemptively(LIMIT, () -> {
            final int sources = 3;
            final long perSource = 20_000;
            try (Graph g = Graph.create()) {
                Entity sched = g.addEntity("sched");
                Component clock = sched.add("RealtimeClock", "clock");
                String[] kind = scheduler.split(":");
                Component s = sched.add(kind[0], "scheduler");
                g.setParameter(s, "clock", clock);
                if (kind.length > 1) {
                    g.setParameter(s, "worker_thread_number", Long.parseLong(kind[1]));
                }
                Entity rx = g.addEntity("rx");
                Receiver in = (Receiver) rx.add("DoubleBufferReceiver", "in");
                g.setParameter(in, "capacity", 4L);
                // policy left at its default, 2 (fault): any overflow ends the run with an error
                g.setParameter(rx.add("MessageAvailableSchedulingTerm", "avail"), "receiver", in);
                g.setParameter(rx.add("CountSchedulingTerm", "count"), "count", sources * perSource);
                FanInRx r = new FanInRx();
                r.in = in;
                r.next = new long[sources];
                rx.add(r, "sink");
                for (int i = 0; i < sources; i++) {
                    Entity tx = g.addEntity("tx" + i);
                    Transmitter out = (Transmitter) tx.add("DoubleBufferTransmitter", "out");
                    Component room = tx.add("DownstreamReceptiveSchedulingTerm", "room");
                    g.setParameter(room, "transmitter", out);
                    g.setParameter(room, "min_size", (long) sources);
                    g.setParameter(tx.add("CountSchedulingTerm", "count"), "count", perSource);
                    SourceTx t = tx.add(new SourceTx(), "source");
                    t.out = out;
                    t.source = i;
                    Component link = g.addEntity("link" + i).add("Connection", "c");
                    g.setParameter(link, "source", out);
                    g.setParameter(link, "target", in);
                }
                RunResult result = g.run();
                assertEquals(StopReason.COMPLETED, result.reason(), result.toString());
                assertNull(r.wrong);
                assertEquals(sources * perSource, r.n);
                for (int i = 0; i < sources; i++) {
                    assertEquals(perSource, r.next[i], "source " + i);
                }
                assertEquals(sources * perSource, in.arrivedCount());
            }
            noWorkerLeft();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"GreedyScheduler", "MultiThreadScheduler:1", "MultiThreadScheduler:2",
            "MultiThreadScheduler:4", "EventBasedScheduler:1", "EventBasedScheduler:2", "EventBasedScheduler:4"})
    void finishedWorkEndsTheRunAsCompleted(String scheduler) {
        assertTimeoutPreemptively(LIMIT, () -> {
            // rx has no count: after tx's 1000 messages it waits for a message that never comes; the sources are
            // done and every queue is empty, so the work is done (GXF ends its ping apps the same way)
            Pairs p = pairs(scheduler, 4, 1, 1000, 0);
            try (Graph g = p.graph()) {
                RunResult r = g.run();
                assertEquals(StopReason.COMPLETED, r.reason(), r.toString());
                for (Rx rx : p.rx()) {
                    assertEquals(1000, rx.n);
                    assertNull(rx.wrong);
                }
            }
            noWorkerLeft();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"GreedyScheduler", "MultiThreadScheduler:1", "MultiThreadScheduler:2",
            "MultiThreadScheduler:4", "EventBasedScheduler:1", "EventBasedScheduler:2", "EventBasedScheduler:4"})
    void maxDurationStopsBusyEntities(String scheduler) {
        assertTimeoutPreemptively(LIMIT, () -> {
            // nothing ever runs out of work: only max_duration_ms ends it
            Pairs p = pairs(scheduler, 4, 4, 0, 0, "max_duration_ms", "150");
            try (Graph g = p.graph()) {
                long t0 = System.nanoTime();
                RunResult r = g.run();
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertEquals(StopReason.MAX_DURATION, r.reason(), r.toString());
                assertTrue(ms >= 150 && ms < 5000, "ran " + ms + " ms");
                for (Rx rx : p.rx()) {
                    assertTrue(rx.n > 0, "every pair made progress");
                    assertNull(rx.wrong);
                }
            }
            noWorkerLeft();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"GreedyScheduler", "MultiThreadScheduler:1", "MultiThreadScheduler:2",
            "MultiThreadScheduler:4", "EventBasedScheduler:1", "EventBasedScheduler:2", "EventBasedScheduler:4"})
    void maxDurationStopsIdleEntitiesWithoutStopOnDeadlock(String scheduler) {
        assertTimeoutPreemptively(LIMIT, () -> {
            Pairs p = pairs(scheduler, 4, 1, 100, 0, "max_duration_ms", "150", "stop_on_deadlock", "false");
            try (Graph g = p.graph()) {
                long t0 = System.nanoTime();
                RunResult r = g.run();
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertEquals(StopReason.MAX_DURATION, r.reason(), r.toString());
                assertTrue(ms >= 150 && ms < 5000, "ran " + ms + " ms");
                for (Rx rx : p.rx()) {
                    assertEquals(100, rx.n);
                }
            }
            noWorkerLeft();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"GreedyScheduler", "MultiThreadScheduler:1", "MultiThreadScheduler:2",
            "MultiThreadScheduler:4", "EventBasedScheduler:1", "EventBasedScheduler:2", "EventBasedScheduler:4"})
    void aFailingCodeletStopsEveryWorker(String scheduler) {
        assertTimeoutPreemptively(LIMIT, () -> {
            Pairs p = pairs(scheduler, 4, 4, 0, 0);
            p.rx().get(2).failAt = 500;
            try (Graph g = p.graph()) {
                GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
                assertEquals("rx2", e.entity());
                assertEquals(500, p.rx().get(2).n);
            }
            noWorkerLeft();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"GreedyScheduler", "MultiThreadScheduler:1", "MultiThreadScheduler:2",
            "MultiThreadScheduler:4", "EventBasedScheduler:1", "EventBasedScheduler:2", "EventBasedScheduler:4"})
    void interruptStopsBusyWorkers(String scheduler) {
        assertTimeoutPreemptively(LIMIT, () -> {
            Pairs p = pairs(scheduler, 4, 4, 0, 0);
            try (Graph g = p.graph()) {
                g.runAsync();
                Thread.sleep(50);
                g.interrupt();
                RunResult r = g.await();
                assertEquals(StopReason.INTERRUPTED, r.reason());
                for (Rx rx : p.rx()) {
                    assertNull(rx.wrong);
                }
            }
            noWorkerLeft();
        });
    }
}

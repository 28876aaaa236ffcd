package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.std.BooleanSchedulingTerm;
import java.lang.reflect.Method;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Greedy scheduler's per-tick path allocates nothing: checking the terms, ticking, the queue hand-off and the
 * delivery iterate arrays and return shared conditions. Measured with the scheduler thread's allocated-bytes counter
 * over 1,000,000 ticks after a warm-up of 200,000 (so the JIT has compiled the loop); the bounds leave room for
 * one-off allocations (a deoptimization, a resized statistics ring) but not for one object per tick.
 */
class GreedyAllocationTest {
    private static final int WARM_UP = 200_000;
    private static final int MEASURED = 1_000_000;
    /**
     * com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes, through reflection: the graph module does not
     * read java.management / jdk.management, and a test should not make it.
     */
    private static final Object THREADS;
    private static final Method ALLOCATED;

    static {
        Object threads = null;
        Method allocated = null;
        try {
            threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            allocated = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        } catch (ReflectiveOperationException e) {
            // a runtime without jdk.management (a jlink'd one may leave it out): the tests are skipped, saying so
        }
        THREADS = threads;
        ALLOCATED = allocated;
    }

    @BeforeEach
    void needsThreadAllocationCounts() {
        Assumptions.assumeTrue(ALLOCATED != null,
                "this Java runtime has no com.sun.management.ThreadMXBean (module jdk.management): no per-thread"
                        + " allocation counts to measure with");
    }

    private static long allocatedBytes() {
        try {
            return (long) ALLOCATED.invoke(THREADS);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Records the scheduler thread's allocated bytes at the first and the last measured tick. */
    static final class Meter {
        long ticks;
        long from;
        long to;

        void tick() {
            ticks++;
            if (ticks == WARM_UP) {
                from = allocatedBytes();
            } else if (ticks == WARM_UP + MEASURED) {
                to = allocatedBytes();
            }
        }

        double bytesPerTick() {
            return (to - from) / (double) MEASURED;
        }
    }

    /** Does nothing but count, then turns its entity off: what is left is the scheduler's own cost. */
    static final class Idle extends Codelet {
        final Meter meter = new Meter();
        BooleanSchedulingTerm enabled;

        @Override
        protected void tick() {
            meter.tick();
            if (meter.ticks == WARM_UP + MEASURED) {
                enabled.disableTick();
            }
        }
    }

    /** Publishes the same message every tick (its own reference kept), so the message costs nothing either. */
    static final class SameTx extends Codelet {
        Transmitter out;
        Message m;

        @Override
        protected void start() {
            m = Message.create().retain();
        }

        @Override
        protected void tick() {
            out.publish(m);
        }

        @Override
        protected void stop() {
            m.release();
        }
    }

    static final class CountingRx extends Codelet {
        Receiver in;
        final Meter meter = new Meter();
        long empty;

        @Override
        protected void tick() {
            if (in.receive() == null) {
                empty++;
            }
            meter.tick();
        }
    }

    private static Graph greedy() {
        Graph g = Graph.create();
        Entity sched = g.addEntity("sched");
        Component clock = sched.add("RealtimeClock", "clock");
        Component s = sched.add("GreedyScheduler", "scheduler");
        g.setParameter(s, "clock", clock);
        return g;
    }

    @Test
    void anEntityTickingAloneAllocatesNothing() {
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            try (Graph g = greedy()) {
                Entity e = g.addEntity("idle");
                // a BooleanSchedulingTerm answers READY with the same condition while it stays enabled (a
                // CountSchedulingTerm makes one per tick: its READY carries the last run's time, as GXF's does)
                BooleanSchedulingTerm enabled = (BooleanSchedulingTerm) e.add("BooleanSchedulingTerm", "enabled");
                Idle idle = e.add(new Idle(), "idle");
                idle.enabled = enabled;
                RunResult r = g.run();
                assertEquals(StopReason.COMPLETED, r.reason(), r.toString());
                assertEquals(WARM_UP + MEASURED, idle.meter.ticks);
                double perTick = idle.meter.bytesPerTick();
                System.out.printf("greedy, one entity: %.2f bytes per tick%n", perTick);
                assertTrue(perTick < 1.0, perTick + " bytes allocated per tick");
            }
        });
    }

    /**
     * Ping tx → rx (capacity 64 and 1) with the terms a real pipeline has (DownstreamReceptive, MessageAvailable,
     * Count), publishing one message over and over: what is left per message is the Timestamp publish stamps (a new
     * record: GXF's pubtime), the entry holding it and the Count terms' READY(last run); the scheduler, the other
     * terms and the queue hand-off add nothing.
     */
    @Test
    void pingAllocatesOnlyTimestampsAndCountConditions() {
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            for (long capacity : new long[] {64, 1}) {
                try (Graph g = greedy()) {
                    long messages = WARM_UP + MEASURED;
                    Entity tx = g.addEntity("tx");
                    Transmitter out = (Transmitter) tx.add("DoubleBufferTransmitter", "out");
                    g.setParameter(out, "capacity", capacity);
                    g.setParameter(tx.add("DownstreamReceptiveSchedulingTerm", "room"), "transmitter", out);
                    g.setParameter(tx.add("CountSchedulingTerm", "count"), "count", messages);
                    tx.add(new SameTx(), "ping").out = out;
                    Entity rx = g.addEntity("rx");
                    Receiver in = (Receiver) rx.add("DoubleBufferReceiver", "in");
                    g.setParameter(in, "capacity", capacity);
                    g.setParameter(rx.add("MessageAvailableSchedulingTerm", "avail"), "receiver", in);
                    g.setParameter(rx.add("CountSchedulingTerm", "count"), "count", messages);
                    CountingRx counting = rx.add(new CountingRx(), "pong");
                    counting.in = in;
                    Component link = g.addEntity("link").add("Connection", "c");
                    g.setParameter(link, "source", out);
                    g.setParameter(link, "target", in);
                    RunResult r = g.run();
                    assertEquals(StopReason.COMPLETED, r.reason(), r.toString());
                    assertEquals(messages, counting.meter.ticks);
                    assertEquals(0, counting.empty);
                    double perMessage = counting.meter.bytesPerTick();
                    System.out.printf("greedy ping, capacity %d: %.2f bytes per message%n", capacity, perMessage);
                    // per message: the Timestamp publish stamps (32 bytes; its name shares the message's component
                    // array, no entry object) and each entity's CountSchedulingTerm READY carrying its last run time
                    // (2 × 24): 80 bytes with compressed pointers; one more object per message or tick (≥ 16 bytes)
                    // fails this
                    assertTrue(perMessage < 96, perMessage + " bytes allocated per message");
                }
            }
        });
    }
}

package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.testing.Recorder;
import java.util.Collections;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The same graphs under every scheduler give the same counts and, on a manual clock, the same timestamps. */
class SchedulerEquivalenceTest {
    private static List<Long> range(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void pingWithCapacityOneRunsInLockStep(String scheduler) {
        try (Graph g = Graphs.load("ping.yaml", scheduler)) {
            RunResult r = g.run();
            Recorder rec = Graphs.codelet(g, "rx/rec", Recorder.class);
            assertEquals(10, g.entity("tx").tickCount());
            assertEquals(10, g.entity("rx").tickCount());
            assertEquals(range(1, 10), rec.acqtimes, "every message arrives, in order");
            assertEquals(Collections.nCopies(10, 1), rec.queuedAtTick, "exactly one message per rx tick");
            assertEquals(StopReason.COMPLETED, r.reason(), "rx is left waiting: " + r);
            EntityStatistics tx = r.statistics().entity("tx");
            EntityStatistics rx = r.statistics().entity("rx");
            assertEquals(10, tx.messagesOut());
            assertEquals(10, rx.messagesIn());
            assertEquals(10, rx.codelets().get(0).ticks());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void countLimitedSenderAgainstReceiverThatStopsEarlier(String scheduler) {
        try (Graph g = Graphs.load("count-limited.yaml", scheduler)) {
            RunResult r = g.run();
            // rx takes 3; tx's 4th message fills the queue of the stopped rx, then tx waits for room forever
            assertEquals(4, g.entity("tx").tickCount());
            assertEquals(3, g.entity("rx").tickCount());
            assertEquals(List.of(1L, 2L, 3L), Graphs.codelet(g, "rx/rec", Recorder.class).acqtimes);
            assertEquals(StopReason.DEADLOCK, r.reason());
            assertTrue(r.detail().contains("tx waits for: DownstreamReceptiveSchedulingTerm 'room' WAIT"), r.detail());
            assertTrue(r.detail().contains("'rx/in' (0+1 of 1)"), r.detail());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy-manual", "multithread-manual", "eventbased-manual"})
    void periodicTicksLandExactlyOnAManualClock(String scheduler) {
        try (Graph g = Graphs.load("periodic.yaml", scheduler)) {
            RunResult r = g.run();
            Recorder rec = Graphs.codelet(g, "rx/rec", Recorder.class);
            List<Long> expected = LongStream.range(0, 10).map(i -> i * 5000).boxed().toList();
            assertEquals(expected, rec.acqtimes, "tx tick times");
            assertEquals(expected, rec.tickTimes, "rx ticks in the same instant as tx");
            assertEquals(10, g.entity("tx").tickCount());
            assertEquals(45_000, g.clock().timestamp(), "the manual clock stopped at the last target");
            assertEquals(StopReason.COMPLETED, r.reason());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void broadcastDeliversTheSameMessageObjectToEveryReceiver(String scheduler) {
        try (Graph g = Graphs.load("broadcast.yaml", scheduler)) {
            g.run();
            Recorder r1 = Graphs.codelet(g, "rx1/rec", Recorder.class);
            Recorder r2 = Graphs.codelet(g, "rx2/rec", Recorder.class);
            Recorder r3 = Graphs.codelet(g, "rx3/rec", Recorder.class);
            assertEquals(100, g.entity("tx").tickCount());
            for (Recorder r : List.of(r1, r2, r3)) {
                assertEquals(range(1, 100), r.acqtimes);
            }
            for (int i = 0; i < 100; i++) {
                assertSame(r1.messages.get(i), r2.messages.get(i), "zero-copy: one object for all receivers");
                assertSame(r1.messages.get(i), r3.messages.get(i));
                assertEquals(0, r1.messages.get(i).refCount(), "released once all three ticks are done");
            }
            assertEquals(300, g.statistics().entities().stream().filter(e -> e.entity().startsWith("rx"))
                    .mapToLong(EntityStatistics::messagesIn).sum());
        }
    }

    /** Spins about 20 µs per tick, so its time dominates the clock readings around it. */
    static final class Busy extends Codelet {
        @Override
        protected void tick() {
            long until = System.nanoTime() + 20_000;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
    }

    /** One clock reading serves two codelets: their tick times add up exactly to the entity's. */
    @ParameterizedTest
    @ValueSource(strings = {"GreedyScheduler", "EventBasedScheduler"})
    void codeletTimesAddUpToTheEntityTime(String scheduler) {
        try (Graph g = Graph.create()) {
            Entity sched = g.addEntity("sched");
            Component s = sched.add(scheduler, "scheduler");
            g.setParameter(s, "clock", sched.add("RealtimeClock", "clock"));
            Entity e = g.addEntity("e");
            g.setParameter(e.add("CountSchedulingTerm", "count"), "count", 100L);
            e.add(new Busy(), "a");
            e.add(new Busy(), "b");
            e.add(new Busy(), "c");
            RunResult r = g.run();
            assertEquals(StopReason.COMPLETED, r.reason(), r.toString());
            EntityStatistics es = r.statistics().entity("e");
            assertEquals(100, es.ticks());
            long sum = 0;
            for (CodeletStatistics c : es.codelets()) {
                assertEquals(100, c.ticks(), c.codelet());
                assertTrue(c.totalTickNs() >= 100 * 20_000L, c.codelet() + ": " + c.totalTickNs() + " ns");
                sum += c.totalTickNs();
            }
            assertEquals(es.totalTickNs(), sum);
        }
    }
}

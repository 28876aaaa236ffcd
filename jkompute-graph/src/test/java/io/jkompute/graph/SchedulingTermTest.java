package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.std.BlockMemoryPool;
import io.jkompute.graph.testing.AsyncJob;
import io.jkompute.graph.testing.Hiccup;
import io.jkompute.graph.testing.Probe;
import io.jkompute.graph.testing.Recorder;
import io.jkompute.graph.testing.TargetTimer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Each scheduling term with exact tick counts and timestamps (manual clock where time matters). */
class SchedulingTermTest {

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "CatchUpMissedTicks;   0 12000 12000 15000 20000",
            "MinTimeBetweenTicks;  0 12000 17000 22000 27000",
            "NoCatchUpMissedTicks; 0 12000 15000 20000 25000"})
    void periodicPoliciesAfterALateTick(String policy, String expected) {
        for (String scheduler : List.of("greedy-manual", "multithread-manual", "eventbased-manual")) {
            try (Graph g = Graphs.load("periodic-policy.yaml", scheduler, "ticker/period/policy=" + policy)) {
                g.run();
                List<Long> want = java.util.Arrays.stream(expected.trim().split(" +")).map(Long::valueOf).toList();
                assertEquals(want, Graphs.codelet(g, "ticker/hiccup", Hiccup.class).tickTimes, scheduler);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void periodicOnTheRealtimeClockNeverTicksEarly(String scheduler) {
        try (Graph g = Graphs.load("periodic.yaml", scheduler, "tx/period/recess_period=2ms")) {
            g.run();
            List<Long> t = Graphs.codelet(g, "rx/rec", Recorder.class).acqtimes;
            assertEquals(10, t.size());
            for (int k = 1; k < t.size(); k++) {
                assertTrue(t.get(k) >= t.get(0) + k * 2_000_000L, "tick " + k + " at " + t.get(k) + " ns is early");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy-manual", "multithread-manual", "eventbased-manual"})
    void targetTimeTicksWhenTheCodeletAsks(String scheduler) {
        try (Graph g = Graphs.load("target-time.yaml", scheduler)) {
            RunResult r = g.run();
            assertEquals(List.of(0L, 3000L, 6000L, 9000L), Graphs.codelet(g, "timer/job", TargetTimer.class).tickTimes);
            assertEquals(StopReason.COMPLETED, r.reason());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void messageAvailableWaitsForMinSize(String scheduler) {
        try (Graph g = Graphs.load("message-available.yaml", scheduler)) {
            g.run();
            Recorder rec = Graphs.codelet(g, "rx/rec", Recorder.class);
            assertEquals(List.of(3, 3, 3), rec.perTick);
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), rec.acqtimes);
        }
    }

    @Test
    void frontStageMaxSizeBlocksWhileTheMainStageIsFull() {
        // rx never takes anything out: after the first sync 3 messages sit in the main stage (> max 2), so rx
        // runs exactly once
        try (Graph g = Graphs.load("message-available.yaml", "greedy", "rx/avail/min_size=1",
                "rx/avail/front_stage_max_size=2", "rx/rec/codelet_params={receiver: in, receive: false}")) {
            g.run();
            Recorder rec = Graphs.codelet(g, "rx/rec", Recorder.class);
            assertEquals(List.of(1, 2, 3), rec.queuedAtTick);
        }
    }

    @ParameterizedTest
    @CsvSource({"greedy,PerReceiver", "multithread,PerReceiver", "eventbased,PerReceiver", "greedy,SumOfAll",
            "eventbased,SumOfAll"})
    void multiMessageAvailable(String scheduler, String mode) {
        try (Graph g = Graphs.load("multi-message.yaml", scheduler, "rx/both/sampling_mode=" + mode)) {
            g.run();
            assertEquals(List.of(2, 2), Graphs.codelet(g, "rx/reca", Recorder.class).perTick);
            assertEquals(List.of(1, 1), Graphs.codelet(g, "rx/recb", Recorder.class).perTick);
            assertEquals(List.of(1L, 2L, 3L, 4L), Graphs.codelet(g, "rx/reca", Recorder.class).acqtimes);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void unconnectedTransmitterNeverTicks(String scheduler) {
        try (Graph g = Graphs.load("unconnected.yaml", scheduler)) {
            RunResult r = g.run();
            Probe p = Graphs.codelet(g, "lonely/probe", Probe.class);
            assertEquals(List.of(), p.tickTimes);
            assertEquals(1, p.starts);
            assertEquals(1, p.stops);
            assertEquals(StopReason.COMPLETED, r.reason());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void booleanTermDisabledStopsTheEntity(String scheduler) {
        try (Graph g = Graphs.load("boolean.yaml", scheduler)) {
            RunResult r = g.run();
            Probe p = Graphs.codelet(g, "gated/probe", Probe.class);
            assertEquals(3, p.tickTimes.size());
            assertEquals(1, p.stops);
            assertEquals(StopReason.COMPLETED, r.reason());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void asynchronousTermParksUntilTheEventIsDone(String scheduler) {
        try (Graph g = Graphs.load("async.yaml", scheduler)) {
            RunResult r = g.run();
            AsyncJob job = Graphs.codelet(g, "worker/job", AsyncJob.class);
            assertEquals(3, g.entity("worker").tickCount());
            assertEquals(2, job.ticksAfterDone, "ticks 2 and 3 ran only after the job said EVENT_DONE");
            assertEquals(StopReason.COMPLETED, r.reason());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy-manual", "multithread-manual", "eventbased-manual"})
    void expiringMessageAvailableBatchesOrTimesOut(String scheduler) {
        try (Graph g = Graphs.load("expiring.yaml", scheduler)) {
            g.run();
            Recorder rec = Graphs.codelet(g, "rx/rec", Recorder.class);
            assertEquals(List.of(2000L, 5500L), rec.tickTimes, "a full batch at 2000, the rest at 3000 + 2500");
            assertEquals(List.of(3, 2), rec.perTick);
            assertEquals(List.of(0L, 1000L, 2000L, 3000L, 4000L), rec.acqtimes);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void memoryAvailableLetsTheSenderRunAsBlocksReturn(String scheduler) {
        try (Graph g = Graphs.load("memory.yaml", scheduler)) {
            g.run();
            assertEquals(10, g.entity("tx").tickCount());
            assertEquals(10, g.entity("rx").tickCount());
            assertEquals(2, g.component("tx/pool", BlockMemoryPool.class).freeBlocks(), "every block came back");
        }
    }

    @Test
    void memoryAvailableHoldsTheSenderWhileBlocksAreReferenced() {
        Graph g = Graphs.load("memory.yaml", "greedy", "rx/avail/min_size=11");
        BlockMemoryPool pool = g.component("tx/pool", BlockMemoryPool.class);
        RunResult r = g.run();
        assertEquals(2, g.entity("tx").tickCount(), "two blocks, both held by queued messages");
        assertEquals(0, pool.freeBlocks());
        assertEquals(StopReason.DEADLOCK, r.reason());
        assertTrue(r.detail().contains("MemoryAvailableSchedulingTerm 'mem' WAIT: 64 bytes wanted from 'tx/pool'"),
                r.detail());
        g.close();
        assertEquals(2, pool.freeBlocks(), "closing the graph released the queued messages and their blocks");
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy-manual", "multithread-manual", "eventbased-manual"})
    void orCombinerLetsAPeriodRunWithoutMessages(String scheduler) {
        try (Graph g = Graphs.load("or.yaml", scheduler)) {
            RunResult r = g.run();
            assertEquals(List.of(0L, 1000L, 2000L), Graphs.codelet(g, "either/probe", Probe.class).tickTimes);
            assertEquals(StopReason.COMPLETED, r.reason());
        }
    }

    @Test
    void withoutTheOrCombinerTheSameEntityDeadlocks() {
        // the combiner lists only 'period': 'avail' is AND-ed on its own and nothing ever arrives
        try (Graph g = Graphs.load("or.yaml", "greedy-manual", "either/or/terms=[period]")) {
            RunResult r = g.run();
            assertEquals(List.of(), Graphs.codelet(g, "either/probe", Probe.class).tickTimes);
            assertEquals(StopReason.DEADLOCK, r.reason());
            assertTrue(r.detail().contains("either waits for: MessageAvailableSchedulingTerm 'avail' WAIT: 0 of "
                    + "min_size 1 messages in 'either/in'"), r.detail());
        }
    }

    @Test
    void codeletTimingFollowsGxf() {
        try (Graph g = Graphs.load("or.yaml", "greedy-manual")) {
            g.run();
            Probe p = Graphs.codelet(g, "either/probe", Probe.class);
            assertEquals(1, p.starts);
            assertEquals(1, p.stops);
            assertEquals(1000L, p.stopTimestamp, "stop() sees the previous execution's timestamp (GXF quirk)");
            JavaCodelet c = g.component("either/probe", JavaCodelet.class);
            assertEquals(3, c.executionCount());
            assertEquals(1e-6, c.deltaTime() + 1e-6, 1e-12, "delta is 0 after stop");
        }
    }
}

package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.std.DoubleBufferReceiver;
import io.jkompute.graph.testing.Probe;
import io.jkompute.graph.testing.Recorder;
import io.jkompute.graph.testing.Thrower;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Queue overflow under each policy, deadlock reports, codelet exceptions. */
class QueueAndFailureTest {

    private static List<Long> backStageAcqtimes(DoubleBufferReceiver in) {
        return java.util.stream.IntStream.range(0, in.backSize()).mapToObj(i -> in.peekBack(i).timestamp().acqtime())
                .toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy-manual", "multithread-manual", "eventbased-manual"})
    void popPolicyKeepsTheNewest(String scheduler) {
        try (Graph g = Graphs.load("overflow.yaml", scheduler, "rx/in/policy=0")) {
            RunResult r = g.run();
            DoubleBufferReceiver in = g.component("rx/in", DoubleBufferReceiver.class);
            assertEquals(List.of(30L, 40L), backStageAcqtimes(in));
            assertEquals(3, in.droppedCount());
            assertEquals(5, in.arrivedCount());
            assertEquals(StopReason.DEADLOCK, r.reason());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy-manual", "multithread-manual", "eventbased-manual"})
    void rejectPolicyKeepsTheOldest(String scheduler) {
        try (Graph g = Graphs.load("overflow.yaml", scheduler, "rx/in/policy=1")) {
            g.run();
            DoubleBufferReceiver in = g.component("rx/in", DoubleBufferReceiver.class);
            assertEquals(List.of(0L, 10L), backStageAcqtimes(in));
            assertEquals(3, in.droppedCount());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy-manual", "multithread-manual", "eventbased-manual"})
    void faultPolicyStopsTheGraphWithAClearError(String scheduler) {
        try (Graph g = Graphs.load("overflow.yaml", scheduler)) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            assertEquals("queue 'rx/in' overflowed during delivery from 'tx/out': back stage full (2 of capacity 2), "
                    + "policy 2 (fault); raise its capacity, give it policy 0 (drop oldest) or 1 (drop newest), or "
                    + "add a DownstreamReceptiveSchedulingTerm upstream", e.getMessage());
            assertEquals("rx", e.entity());
            assertEquals("in", e.component());
            assertEquals(3, g.entity("tx").tickCount(), "the third message overflowed");
        }
    }

    @Test
    void faultPolicyOnSyncIntoAFullMainStage() {
        try (Graph g = Graphs.load("overflow-sync.yaml", "greedy-manual")) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            assertEquals("queue 'rx/in' overflowed during sync: main stage full (2 + 1 arriving, capacity 2), policy 2 "
                    + "(fault); raise its capacity, give it policy 0 (drop oldest) or 1 (drop newest), or add a "
                    + "DownstreamReceptiveSchedulingTerm upstream", e.getMessage());
        }
    }

    @Test
    void popPolicyOnSyncDropsTheOldestOfTheMainStage() {
        try (Graph g = Graphs.load("overflow-sync.yaml", "greedy-manual", "rx/in/policy=0")) {
            g.run();
            DoubleBufferReceiver in = g.component("rx/in", DoubleBufferReceiver.class);
            assertEquals(2, in.size());
            assertEquals(List.of(4L, 5L), List.of(in.peek(0).timestamp().acqtime(), in.peek(1).timestamp().acqtime()));
            assertEquals(3, in.droppedCount());
        }
    }

    @Test
    void deadlockReportSaysWhoWaitsForWhat() {
        // rx wants 2 messages in a queue of capacity 1: tx's first message stays queued and tx waits for room
        try (Graph g = Graphs.load("ping.yaml", "greedy", "rx/avail/min_size=2")) {
            RunResult r = g.run();
            assertEquals(StopReason.DEADLOCK, r.reason());
            assertTrue(r.detail().startsWith("Some entities are waiting for execution, but there are no periodic or"
                    + " async entities to get out of the deadlock:\n"), r.detail());
            assertTrue(r.detail().contains("tx waits for: DownstreamReceptiveSchedulingTerm"), r.detail());
            assertTrue(r.detail().contains("rx waits for: MessageAvailableSchedulingTerm 'avail' WAIT: 1 of min_size 2"
                    + " messages in 'rx/in'"), r.detail());
        }
    }

    @Test
    void finishedWorkEndsAsCompletedWithItsReason() {
        // tx's count runs out, rx has taken every message and waits for more: the work is done, not deadlocked
        try (Graph g = Graphs.load("ping.yaml", "greedy")) {
            RunResult r = g.run();
            assertEquals(StopReason.COMPLETED, r.reason(), r.toString());
            assertEquals("work done: the sources finished and every queue is empty (1 entity left waiting for"
                    + " messages)", r.detail());
            assertEquals(10, g.entity("rx").tickCount());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void withoutStopOnDeadlockTheRunEndsAtMaxDuration(String scheduler) {
        try (Graph g = Graphs.load("ping.yaml", scheduler, "sched/scheduler/stop_on_deadlock=false",
                "sched/scheduler/max_duration_ms=100")) {
            long t0 = System.nanoTime();
            RunResult r = g.run();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(StopReason.MAX_DURATION, r.reason());
            assertEquals(10, g.entity("rx").tickCount());
            assertTrue(ms >= 100 && ms < 5000, "ran " + ms + " ms");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void deadlockTimeoutWaitsBeforeStopping(String scheduler) {
        try (Graph g = Graphs.load("ping.yaml", scheduler, "sched/scheduler/stop_on_deadlock_timeout=150",
                "rx/avail/min_size=2")) {
            long t0 = System.nanoTime();
            RunResult r = g.run();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(StopReason.DEADLOCK, r.reason());
            assertTrue(ms >= 150, "stopped after " + ms + " ms");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void anEntityParkedForAnEventThatNeverComesIsNotADeadlock(String scheduler) {
        try (Graph g = Graphs.load("async.yaml", scheduler, "worker/job/codelet_params={term: async, finish: false}",
                "sched/scheduler/max_duration_ms=300")) {
            // 300 ms, not less: on a loaded machine a worker thread may wait that long for its first time on a core
            RunResult r = g.run();
            assertEquals(StopReason.MAX_DURATION, r.reason(), "WAIT_EVENT keeps the graph alive until max_duration_ms");
            assertEquals(1, g.entity("worker").tickCount());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread", "eventbased"})
    void codeletExceptionStopsTheGraphAndStillStopsStartedCodelets(String scheduler) {
        try (Graph g = Graphs.load("failing.yaml", scheduler)) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            assertEquals("codelet 'rx/thrower' (JavaCodelet) failed in tick(): IllegalStateException: boom at 3",
                    e.getMessage());
            assertEquals("rx", e.entity());
            assertEquals("thrower", e.component());
            assertEquals("boom at 3", e.getCause().getMessage());
            Thrower thrower = Graphs.codelet(g, "rx/thrower", Thrower.class);
            assertEquals(3, thrower.ticks);
            assertEquals(1, thrower.stops);
            assertEquals(1, Graphs.codelet(g, "rx/first", Probe.class).stops);
            assertEquals(1, Graphs.codelet(g, "tx/probe", Probe.class).stops, "other entities are stopped too");
            assertEquals(2, Graphs.codelet(g, "rx/last", Recorder.class).acqtimes.size(),
                    "codelets after the failing one do not tick");
        }
    }

    @Test
    void exceptionInStartStopsOnlyTheCodeletsThatStarted() {
        try (Graph g = Graphs.load("failing.yaml", "greedy", "rx/thrower/codelet_params={phase: start}")) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            assertEquals("codelet 'rx/thrower' (JavaCodelet) failed in start(): IllegalStateException: boom in start",
                    e.getMessage());
            assertEquals(1, Graphs.codelet(g, "rx/first", Probe.class).stops);
            assertEquals(0, Graphs.codelet(g, "rx/thrower", Thrower.class).stops, "never started, so never stopped");
            assertEquals(0, Graphs.codelet(g, "rx/last", Recorder.class).acqtimes.size());
        }
    }

    @Test
    void runAsyncInterruptAndAwait() throws Exception {
        try (Graph g = Graphs.load("ping.yaml", "greedy", "sched/scheduler/stop_on_deadlock=false")) {
            g.runAsync();
            Thread.sleep(50);
            g.interrupt();
            RunResult r = g.await();
            assertEquals(StopReason.INTERRUPTED, r.reason());
            assertEquals(10, g.entity("rx").tickCount());
            assertThrows(IllegalStateException.class, g::run, "a graph runs once");
        }
    }
}

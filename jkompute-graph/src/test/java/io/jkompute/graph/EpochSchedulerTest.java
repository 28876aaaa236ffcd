package io.jkompute.graph;

import static io.jkompute.graph.StandardCodeletsTest.connect;
import static io.jkompute.graph.StandardCodeletsTest.recorder;
import static io.jkompute.graph.StandardCodeletsTest.seqTx;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jkompute.graph.std.EpochScheduler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GXF's EpochScheduler: the caller's runEpoch drives the graph, on the caller's thread. */
class EpochSchedulerTest {
    @TempDir
    Path dir;

    static final String EPOCH = """
            ---
            name: sched
            components:
            - { name: clock, type: ManualClock }
            - { name: epoch, type: nvidia::gxf::EpochScheduler, parameters: { clock: clock } }
            """;

    Graph ping(int count) throws Exception {
        Path f = Files.createTempFile(dir, "epoch", ".yaml");
        Files.writeString(f, "%YAML 1.2\n" + seqTx("tx", count, "") + recorder("rx") + connect("tx/out", "rx/in") + EPOCH);
        return Graph.load(f);
    }

    @Test
    void anEpochWithoutBudgetExecutesEachEntityOnce() throws Exception {
        try (Graph g = ping(5)) {
            EpochScheduler s = g.component("sched/epoch", EpochScheduler.class);
            IllegalStateException early = assertThrows(IllegalStateException.class, () -> s.runEpoch(0));
            assertEquals("runEpoch before the graph runs: call Graph.runAsync() first", early.getMessage());
            g.runAsync();
            // the first epoch starts both entities (a start is an execution that was READY; it does not tick)
            assertEquals(2, s.runEpoch(0));
            assertEquals(0, g.entity("tx").tickCount());
            assertEquals(0, g.entity("rx").tickCount());
            // then each epoch ticks tx, and rx takes its message in the same pass
            for (int epoch = 1; epoch <= 5; epoch++) {
                assertEquals(2, s.runEpoch(0), "epoch " + epoch);
                assertEquals(epoch, g.entity("tx").tickCount());
                assertEquals(epoch, g.entity("rx").tickCount());
            }
            // tx has used its count; rx waits for a message that never comes
            assertEquals(0, s.runEpoch(0));
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L), StandardCodeletsTest.acqtimes(g, "rx"));
            g.interrupt();
            assertEquals(StopReason.INTERRUPTED, g.await(10, TimeUnit.SECONDS).reason());
            IllegalStateException late = assertThrows(IllegalStateException.class, () -> s.runEpoch(0));
            assertEquals("runEpoch after the graph's run ended", late.getMessage());
        }
    }

    @Test
    void aBudgetKeepsMakingPassesUntilNothingIsReady() throws Exception {
        try (Graph g = ping(7)) {
            EpochScheduler s = g.component("sched/epoch", EpochScheduler.class);
            g.runAsync();
            // the manual clock does not move, so the budget never runs out: passes go on until none finds work
            // two starts, then seven passes of two ticks
            assertEquals(16, s.runEpoch(1000));
            assertEquals(7, g.entity("tx").tickCount());
            assertEquals(7, g.entity("rx").tickCount());
            g.interrupt();
            g.await(10, TimeUnit.SECONDS);
        }
    }
}

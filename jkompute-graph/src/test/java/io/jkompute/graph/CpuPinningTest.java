package io.jkompute.graph;

import static io.jkompute.graph.StandardCodeletsTest.GREEDY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.internal.CpuAffinity;
import io.jkompute.graph.testing.AffinityProbe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CPUThread's pin_cores confines an entity's executions to CPUs, read back with sched_getaffinity. */
class CpuPinningTest {
    @TempDir
    Path dir;

    Graph probe(String pinCores) throws Exception {
        Path f = Files.createTempFile(dir, "pin", ".yaml");
        Files.writeString(f, "%YAML 1.2\n" + """
                ---
                name: pinned
                components:
                - { type: CountSchedulingTerm, parameters: { count: 3 } }
                - { name: probe, type: JavaCodelet, parameters: { codelet_name: io.jkompute.graph.testing.AffinityProbe } }
                - { name: cpu, type: nvidia::gxf::CPUThread, parameters: { pin_cores: %s } }
                ---
                name: free
                components:
                - { type: CountSchedulingTerm, parameters: { count: 3 } }
                - { name: probe, type: JavaCodelet, parameters: { codelet_name: io.jkompute.graph.testing.AffinityProbe } }
                """.formatted(pinCores) + GREEDY);
        return Graph.load(f);
    }

    @Test
    void aPinnedEntityTicksOnlyOnItsCpusAndItsThreadGetsItsAffinityBack() throws Exception {
        Assumptions.assumeTrue(CpuAffinity.isSupported(), "CPU affinity needs Linux");
        BitSet allowed = CpuAffinity.current();
        Assumptions.assumeTrue(allowed.cardinality() >= 2, "needs two CPUs to tell pinning apart, has " + allowed);
        int cpu = allowed.nextSetBit(0);
        BitSet one = new BitSet();
        one.set(cpu);
        try (Graph g = probe("[" + cpu + "]")) {
            g.run();
            AffinityProbe p = Graphs.codelet(g, "pinned/probe", AffinityProbe.class);
            assertEquals(3, p.seen.size());
            for (BitSet seen : p.seen) {
                assertEquals(one, seen);
            }
            // the greedy scheduler runs both entities on one thread: it gets its affinity back after each execution
            AffinityProbe free = Graphs.codelet(g, "free/probe", AffinityProbe.class);
            assertEquals(3, free.seen.size());
            for (BitSet seen : free.seen) {
                assertEquals(allowed, seen);
            }
        }
    }

    @Test
    void aCpuOutsideTheRangeIsALoadError() {
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> probe("[4096]").close());
        assertTrue(e.getMessage().contains("parameter 'pin_cores': CPU 4096 is not in 0..1023"), e.getMessage());
    }
}

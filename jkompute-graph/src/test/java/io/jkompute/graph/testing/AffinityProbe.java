package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.internal.CpuAffinity;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records the CPU affinity of the thread running each of its ticks (read back with sched_getaffinity). */
public class AffinityProbe extends CodeletAdapter {
    public final List<BitSet> seen = new CopyOnWriteArrayList<>();

    @Override
    public void tick() {
        seen.add(CpuAffinity.current());
    }
}

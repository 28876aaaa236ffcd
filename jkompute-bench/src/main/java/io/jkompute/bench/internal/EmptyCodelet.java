package io.jkompute.bench.internal;

import io.jkompute.graph.CodeletAdapter;

/** A Java codelet whose tick does nothing: the baseline of the graph suite's empty-tick rows. */
public final class EmptyCodelet extends CodeletAdapter {
    @Override
    public void tick() {
        // nothing: the tick's cost is the scheduler's call and the statistics around it
    }
}

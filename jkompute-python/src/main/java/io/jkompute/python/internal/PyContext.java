package io.jkompute.python.internal;

import io.jkompute.graph.Allocator;
import io.jkompute.graph.Clock;
import io.jkompute.graph.Component;
import io.jkompute.graph.Graph;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.SchedulingTerm;
import io.jkompute.graph.Transmitter;
import io.jkompute.graph.std.BooleanSchedulingTerm;
import io.jkompute.graph.std.CountSchedulingTerm;
import io.jkompute.graph.std.PeriodicSchedulingTerm;
import io.jkompute.graph.std.TargetTimeSchedulingTerm;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * GXF's {@code context} as Python codelets of one graph see it ({@code self.context()}): what
 * {@code X.get(context, cid, name)} looks components up in.
 */
public final class PyContext {
    private static final Map<String, Class<? extends Component>> KINDS = Map.of(
            "Receiver", Receiver.class, "Transmitter", Transmitter.class, "Allocator", Allocator.class,
            "Clock", Clock.class, "SchedulingTerm", SchedulingTerm.class,
            "BooleanSchedulingTerm", BooleanSchedulingTerm.class, "CountSchedulingTerm", CountSchedulingTerm.class,
            "PeriodicSchedulingTerm", PeriodicSchedulingTerm.class,
            "TargetTimeSchedulingTerm", TargetTimeSchedulingTerm.class,
            "CudaStreamPool", io.jkompute.graph.cuda.CudaStreamPool.class);

    private final Graph graph;
    private final Map<Long, Component> codelets = new ConcurrentHashMap<>();

    public PyContext(Graph graph) {
        this.graph = graph;
    }

    /** Makes a codelet's cid usable in {@code X.get(context, cid, name)} lookups. */
    public void register(Component codelet) {
        codelets.put(codelet.cid(), codelet);
    }

    /**
     * The component named {@code handle} ("comp" in the codelet's entity or "entity/comp") of the given kind (a gxf
     * class name such as Receiver or CountSchedulingTerm; anything else means any component).
     */
    public Component lookup(long cid, String handle, String kind) {
        Component owner = codelets.get(cid);
        if (owner == null) {
            throw new IllegalArgumentException("no Python codelet with cid " + cid + " in this graph");
        }
        Class<? extends Component> type = KINDS.getOrDefault(kind, Component.class);
        int slash = handle.indexOf('/');
        return slash < 0 ? owner.entity().component(handle, type) : graph.component(handle, type);
    }
}

package io.jkompute.python.internal;

import io.jkompute.graph.Allocator;
import io.jkompute.graph.Clock;
import io.jkompute.graph.Codelet;
import io.jkompute.graph.Component;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Transmitter;
import java.util.List;
import java.util.function.Supplier;
import org.graalvm.polyglot.HostAccess.Export;

/** GXF's C++ side of a PyCodeletV0 as the Python {@code CodeletAdapter} sees it ({@code set_bridge(bridge)}). */
public final class PyCodeletBridge {
    private final Codelet codelet;
    private final PyContext context;
    private final Object params;
    private final List<Receiver> receivers;
    private final List<Transmitter> transmitters;
    private final List<Allocator> allocators;
    private final List<Component> streamPools;
    private final Supplier<Clock> clock;

    public PyCodeletBridge(Codelet codelet, PyContext context, Object params, List<Receiver> receivers,
            List<Transmitter> transmitters, List<Allocator> allocators, List<Component> streamPools,
            Supplier<Clock> clock) {
        this.codelet = codelet;
        this.context = context;
        this.params = params;
        this.receivers = receivers;
        this.transmitters = transmitters;
        this.allocators = allocators;
        this.streamPools = streamPools;
        this.clock = clock;
    }

    @Export
    public PyContext context() {
        return context;
    }

    @Export
    public long eid() {
        return codelet.eid();
    }

    @Export
    public long cid() {
        return codelet.cid();
    }

    @Export
    public String name() {
        return codelet.name();
    }

    @Export
    public long executionTimestamp() {
        return codelet.executionTimestamp();
    }

    @Export
    public double executionTime() {
        return codelet.executionTime();
    }

    @Export
    public double deltaTime() {
        return codelet.deltaTime();
    }

    @Export
    public long executionCount() {
        return codelet.executionCount();
    }

    @Export
    public boolean isFirstTick() {
        return codelet.isFirstTick();
    }

    /** codelet_params parsed as YAML (a map, list, scalar, or null when not given). */
    @Export
    public Object params() {
        return params;
    }

    @Export
    public List<Receiver> receivers() {
        return receivers;
    }

    @Export
    public List<Transmitter> transmitters() {
        return transmitters;
    }

    @Export
    public List<Allocator> allocators() {
        return allocators;
    }

    @Export
    public List<Component> streamPools() {
        return streamPools;
    }

    @Export
    public Clock clock() {
        return clock.get();
    }
}

package io.jkompute.net;

import io.jkompute.graph.Component;
import io.jkompute.graph.Entity;
import io.jkompute.graph.Graph;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;

/**
 * GXF's {@code nvidia::gxf::UcxContext}: the network context of a graph. Parameters as GXF's: {@code serializer}
 * (a UcxEntitySerializer), {@code reconnect} (true; accepted, a broken link ends the run here), {@code cpu_data_only}
 * (false: device tensors arrive on the receiver's device; true: as host tensors), {@code enable_async} (true;
 * accepted, receiving is always asynchronous here). The transport underneath is Aeron ({@link AeronTransport}),
 * started by the first UCX component of the process.
 *
 * <p>jkompute adds {@code busy_poll_us} (0): how long each link thread of this graph (a UcxReceiver's poller, a
 * UcxTransmitter's credit poller and its wait for room) keeps spinning after its last work before it yields and
 * parks. 0 spins briefly (about a hundred spins and yields) and then parks for up to 100–200 µs, so an idle link
 * costs little CPU but a message that finds its poller parked waits out the park. A positive value keeps up to one
 * core busy per link thread for that long after each message, for lower and steadier latency while traffic flows;
 * the graph's scheduler threads, which poll the links themselves while they have nothing to run, then poll at least
 * that long before they park.
 */
public class UcxContext extends Component {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public UcxContext() {
    }

    private Parameter<UcxEntitySerializer> serializer;
    private Parameter<Boolean> reconnect;
    private Parameter<Boolean> cpuDataOnly;
    private Parameter<Boolean> enableAsync;
    private Parameter<Long> busyPollUs;

    @Override
    protected void registerInterface(Registrar r) {
        serializer = r.optionalHandle("serializer", UcxEntitySerializer.class, "entity serializer");
        reconnect = r.parameter("reconnect", ParameterTypes.BOOL, "reconnect after a failure (accepted)", true);
        cpuDataOnly = r.parameter("cpu_data_only", ParameterTypes.BOOL, "deliver device tensors to the host", false);
        enableAsync = r.parameter("enable_async", ParameterTypes.BOOL, "asynchronous transfers (accepted)", true);
        busyPollUs = r.parameter("busy_poll_us", ParameterTypes.UINT64,
                "µs a link thread spins after its last work before parking (0: brief back-off; CPU for latency)", 0L);
    }

    @Override
    protected void initialize() {
        if (busyPollUs.get() < 0 || busyPollUs.get() > 10_000_000) {
            throw NetSettings.bad(this, "busy_poll_us", "must be between 0 and 10000000 (10 s), got " + busyPollUs.get());
        }
    }

    /** Nanoseconds a link thread spins after its last work (0: the brief default back-off). */
    long busyPollNs() {
        return busyPollUs.get() * 1000;
    }

    /** The graph's busy-poll time, 0 without a UcxContext. */
    static long busyPollNs(Graph graph) {
        UcxContext c = find(graph);
        return c == null ? 0 : c.busyPollNs();
    }

    /** True when received device tensors are delivered as host tensors ({@code cpu_data_only}). */
    public boolean cpuDataOnly() {
        return cpuDataOnly.get();
    }

    /** The graph's UcxContext, or null. */
    static UcxContext find(Graph graph) {
        for (Entity e : graph.entities()) {
            for (Component c : e.components()) {
                if (c instanceof UcxContext u) {
                    return u;
                }
            }
        }
        return null;
    }
}

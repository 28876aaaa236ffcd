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
 */
public class UcxContext extends Component {
    private Parameter<UcxEntitySerializer> serializer;
    private Parameter<Boolean> reconnect;
    private Parameter<Boolean> cpuDataOnly;
    private Parameter<Boolean> enableAsync;

    @Override
    protected void registerInterface(Registrar r) {
        serializer = r.optionalHandle("serializer", UcxEntitySerializer.class, "entity serializer");
        reconnect = r.parameter("reconnect", ParameterTypes.BOOL, "reconnect after a failure (accepted)", true);
        cpuDataOnly = r.parameter("cpu_data_only", ParameterTypes.BOOL, "deliver device tensors to the host", false);
        enableAsync = r.parameter("enable_async", ParameterTypes.BOOL, "asynchronous transfers (accepted)", true);
    }

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

package io.jkompute.net;

import io.jkompute.graph.ComponentRegistry;
import io.jkompute.graph.GraphExtension;

/** GXF's UCX extension names, carried over Aeron: found through ServiceLoader when jkompute-net is on the path. */
public final class NetExtension implements GraphExtension {
    /** Creates the extension; {@link java.util.ServiceLoader} calls this when the module is on the path. */
    public NetExtension() {
    }

    @Override
    public String name() {
        return "NetExtension";
    }

    @Override
    public void register(ComponentRegistry r) {
        r.register("UcxContext", UcxContext::new);
        r.register("UcxTransmitter", UcxTransmitter::new);
        r.register("UcxReceiver", UcxReceiver::new);
        r.register("UcxEntitySerializer", UcxEntitySerializer::new);
        r.register("UcxComponentSerializer", UcxComponentSerializer::new);
        r.register("UcxSerializationBuffer", UcxSerializationBuffer::new);
    }
}

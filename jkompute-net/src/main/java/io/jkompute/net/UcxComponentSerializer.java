package io.jkompute.net;

import io.jkompute.graph.Allocator;
import io.jkompute.graph.Component;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.Registrar;

/**
 * GXF's {@code nvidia::gxf::UcxComponentSerializer}: parameter {@code allocator} (accepted). Timestamps, host and
 * device tensors and strings are serialized by {@link WireFormat}.
 */
public class UcxComponentSerializer extends Component {
    private Parameter<Allocator> allocator;

    @Override
    protected void registerInterface(Registrar r) {
        allocator = r.optionalHandle("allocator", Allocator.class, "allocator for received tensors (accepted)");
    }
}

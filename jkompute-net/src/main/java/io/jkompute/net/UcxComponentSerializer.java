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
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public UcxComponentSerializer() {
    }

    private Parameter<Allocator> allocator;

    @Override
    protected void registerInterface(Registrar r) {
        allocator = r.optionalHandle("allocator", Allocator.class, "allocator for received tensors (accepted)");
    }
}

package io.jkompute.net;

import io.jkompute.graph.Allocator;
import io.jkompute.graph.Component;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;

/**
 * GXF's {@code nvidia::gxf::UcxSerializationBuffer}: parameters {@code allocator} and {@code buffer_size} (4096),
 * accepted; jkompute sizes its buffers per message and chunks large ones.
 */
public class UcxSerializationBuffer extends Component {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public UcxSerializationBuffer() {
    }

    private Parameter<Allocator> allocator;
    private Parameter<Long> bufferSize;

    @Override
    protected void registerInterface(Registrar r) {
        allocator = r.optionalHandle("allocator", Allocator.class, "allocator (accepted)");
        bufferSize = r.parameter("buffer_size", ParameterTypes.UINT64, "bytes (accepted)", 4096L);
    }
}

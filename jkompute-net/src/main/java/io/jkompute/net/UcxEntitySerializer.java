package io.jkompute.net;

import io.jkompute.graph.Component;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import java.util.List;

/**
 * GXF's {@code nvidia::gxf::UcxEntitySerializer}: parameters {@code component_serializers} (handles) and
 * {@code verbose_warning} (false). Messages are encoded with {@link WireFormat} whatever serializers are listed.
 */
public class UcxEntitySerializer extends Component {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public UcxEntitySerializer() {
    }

    private Parameter<List<UcxComponentSerializer>> serializers;
    private Parameter<Boolean> verbose;

    @Override
    protected void registerInterface(Registrar r) {
        serializers = r.handles("component_serializers", UcxComponentSerializer.class, "component serializers");
        verbose = r.parameter("verbose_warning", ParameterTypes.BOOL, "warn about unserializable components", false);
    }
}

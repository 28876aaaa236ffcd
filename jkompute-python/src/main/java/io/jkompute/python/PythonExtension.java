package io.jkompute.python;

import io.jkompute.graph.ComponentRegistry;
import io.jkompute.graph.GraphExtension;

/** Registers {@code PyCodeletV0} (GXF's PythonCodeletExtension) when this module is on the class path. */
public final class PythonExtension implements GraphExtension {
    /** Creates the extension; {@link java.util.ServiceLoader} calls this when the module is on the path. */
    public PythonExtension() {
    }

    @Override
    public String name() {
        return "PythonCodeletExtension";
    }

    @Override
    public void register(ComponentRegistry registry) {
        registry.register("PyCodeletV0", PyCodeletV0::new);
    }
}

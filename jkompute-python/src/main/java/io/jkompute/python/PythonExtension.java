package io.jkompute.python;

import io.jkompute.graph.ComponentRegistry;
import io.jkompute.graph.GraphExtension;

/** Registers {@code PyCodeletV0} (GXF's PythonCodeletExtension) when this module is on the class path. */
public final class PythonExtension implements GraphExtension {
    @Override
    public String name() {
        return "PythonCodeletExtension";
    }

    @Override
    public void register(ComponentRegistry registry) {
        registry.register("PyCodeletV0", PyCodeletV0::new);
    }
}

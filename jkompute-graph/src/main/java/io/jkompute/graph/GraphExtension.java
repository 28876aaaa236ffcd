package io.jkompute.graph;

/**
 * A set of component types, found with {@link java.util.ServiceLoader} (module {@code provides} or
 * {@code META-INF/services/io.jkompute.graph.GraphExtension}); the standard set ships with the runtime, further
 * jars come through a manifest ({@code extensions: [a.jar, b.jar]}).
 */
public interface GraphExtension {
    /** A name for messages, e.g. "StandardExtension". */
    String name();

    /** Registers this extension's component types. */
    void register(ComponentRegistry registry);
}

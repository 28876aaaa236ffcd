package io.jkompute.graph;

/**
 * A running graph failed: a codelet threw, a queue with the fault policy overflowed, a term was misused.
 * The message names the entity and component; the cause is the original exception.
 */
public class GraphExecutionException extends GraphException {
    /** Name of the entity where it failed, or null. */
    private final String entity;
    /** Name of the component where it failed, or null. */
    private final String component;

    /** A failure in {@code component} of {@code entity} (either may be null), caused by {@code cause} (may be null). */
    public GraphExecutionException(String entity, String component, String message, Throwable cause) {
        super(message, cause);
        this.entity = entity;
        this.component = component;
    }

    /** Name of the entity where it failed (null if not tied to one). */
    public String entity() {
        return entity;
    }

    /** Name of the component (codelet, queue, term) where it failed, or null. */
    public String component() {
        return component;
    }
}

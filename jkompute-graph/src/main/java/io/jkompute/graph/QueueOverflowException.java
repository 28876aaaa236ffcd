package io.jkompute.graph;

/** A queue with the fault policy (2) was full when a message arrived. */
public class QueueOverflowException extends GraphExecutionException {
    /** A full queue ({@code component}) of {@code entity} refused a message under the fault policy. */
    public QueueOverflowException(String entity, String component, String message) {
        super(entity, component, message, null);
    }
}

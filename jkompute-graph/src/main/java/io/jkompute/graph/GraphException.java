package io.jkompute.graph;

/** Base of the graph runtime's exceptions. */
public class GraphException extends RuntimeException {
    /** A failure with this message. */
    public GraphException(String message) {
        super(message);
    }

    /** A failure with this message, caused by {@code cause}. */
    public GraphException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.jkompute.graph;

/** A graph could not be loaded or activated: bad YAML, unknown type or parameter, wrong value, dangling handle. */
public class GraphLoadException extends GraphException {
    /** The file and line of the problem, or null. */
    private final SourceLocation location;

    /** A load error at {@code location} (null when not tied to a place in a file); the message starts with it. */
    public GraphLoadException(SourceLocation location, String message) {
        this(location, message, null);
    }

    /** A load error at {@code location} (may be null), caused by {@code cause}. */
    public GraphLoadException(SourceLocation location, String message, Throwable cause) {
        super(location == null ? message : location + ": " + message, cause);
        this.location = location;
    }

    /** The file and line the problem was found at, or null. */
    public SourceLocation location() {
        return location;
    }
}

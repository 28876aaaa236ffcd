package io.jkompute.graph;

/** A graph could not be loaded or activated: bad YAML, unknown type or parameter, wrong value, dangling handle. */
public class GraphLoadException extends GraphException {
    private final SourceLocation location;

    public GraphLoadException(SourceLocation location, String message) {
        this(location, message, null);
    }

    public GraphLoadException(SourceLocation location, String message, Throwable cause) {
        super(location == null ? message : location + ": " + message, cause);
        this.location = location;
    }

    /** The file and line the problem was found at, or null. */
    public SourceLocation location() {
        return location;
    }
}

package io.jkompute.graph;

/** Where a graph element or parameter value came from: a YAML file and line (1-based), or a named origin. */
public record SourceLocation(String file, int line) {
    /** Values set from Java code. */
    public static final SourceLocation JAVA_API = new SourceLocation("<java>", 0);

    @Override
    public String toString() {
        return line > 0 ? file + ":" + line : file;
    }
}

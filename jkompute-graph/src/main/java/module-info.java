/**
 * GXF-style dataflow graphs: entities holding codelets, queues, scheduling terms; greedy, multi-thread and
 * event-based schedulers; GXF-format YAML apps; Java codelets compiled from source at load time.
 */
module io.jkompute.graph {
    requires transitive io.jkompute.core;
    requires org.slf4j;
    requires org.snakeyaml.engine.v2;
    requires java.compiler;

    exports io.jkompute.graph;
    exports io.jkompute.graph.std;
    // the fragment planner (jkompute-net) composes the app and reads each fragment's documents with the same reader
    exports io.jkompute.graph.yaml to io.jkompute.net;

    uses io.jkompute.graph.GraphExtension;
    provides io.jkompute.graph.GraphExtension with io.jkompute.graph.std.StandardExtension;
}

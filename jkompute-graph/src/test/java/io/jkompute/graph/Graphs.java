package io.jkompute.graph;

import java.nio.file.Path;

/** Loads the test graphs in src/test/resources with one of the scheduler files. */
final class Graphs {
    static final Path RESOURCES = fromModule("src/test/resources");
    static final Path APPS = fromModule("../apps");

    private Graphs() {
    }

    /**
     * A path relative to this module's directory, also when the suite runs from the repository root (the GPU host
     * runs every module's tests in one JVM there).
     */
    static Path fromModule(String relative) {
        Path inModule = Path.of(relative);
        return java.nio.file.Files.exists(inModule) ? inModule : Path.of("jkompute-graph").resolve(relative).normalize();
    }

    /** graphs/NAME plus schedulers/SCHEDULER.yaml, with overrides entity/comp/param=value. */
    static Graph load(String graph, String scheduler, String... overrides) {
        Graph.Loader l = Graph.loader().file(RESOURCES.resolve("graphs").resolve(graph))
                .file(RESOURCES.resolve("schedulers").resolve(scheduler + ".yaml"));
        for (String o : overrides) {
            l.param(o);
        }
        return l.load();
    }

    /** The user codelet of the JavaCodelet at entity/component. */
    static <T> T codelet(Graph g, String path, Class<T> type) {
        return type.cast(g.component(path, JavaCodelet.class).instance());
    }
}

package io.jkompute.python;

import io.jkompute.graph.Graph;
import io.jkompute.python.internal.PyContext;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The Python side of each graph that has Python codelets: its {@code context} object, created by the graph's first
 * PyCodeletV0 and dropped when its last one is deinitialized (graph close). All graphs share the process's one
 * interpreter (as GXF's codelets share one), so modules imported by one graph's codelets are there for the next.
 */
final class PythonRuntime {
    private static final Map<Graph, GraphPython> GRAPHS = new IdentityHashMap<>();

    private PythonRuntime() {
    }

    /** The graph's Python context, created on first use; every call must be matched by {@link #release}. */
    static synchronized GraphPython acquire(Graph graph) {
        GraphPython gp = GRAPHS.computeIfAbsent(graph, g -> new GraphPython(new PyContext(g)));
        gp.users++;
        return gp;
    }

    /** Drops one user of the graph's context; the last one removes it. */
    static synchronized void release(Graph graph) {
        GraphPython gp = GRAPHS.get(graph);
        if (gp != null && --gp.users == 0) {
            GRAPHS.remove(graph);
        }
    }

    /** Graphs with a live Python context (for tests: 0 once every graph using Python is closed). */
    static synchronized int openContexts() {
        return GRAPHS.size();
    }

    /** A graph's context and the number of PyCodeletV0 components using it. */
    static final class GraphPython {
        private final PyContext bridge;
        private int users;

        GraphPython(PyContext bridge) {
            this.bridge = bridge;
        }

        /** The object Python codelets see as {@code self.context()}. */
        PyContext bridge() {
            return bridge;
        }
    }
}

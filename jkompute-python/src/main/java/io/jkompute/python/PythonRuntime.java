package io.jkompute.python;

import io.jkompute.graph.Graph;
import io.jkompute.python.internal.PyContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.io.IOAccess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One GraalPy {@link Engine} for the process (parsed code and the language's internal resources are shared by every
 * graph) and one {@link Context} per graph, created by the graph's first PyCodeletV0 and closed when its last one is
 * deinitialized (graph close).
 */
final class PythonRuntime {
    /** System property naming where GraalPy unpacks its standard library; set before the engine is built. */
    static final String RESOURCE_CACHE = "polyglot.engine.userResourceCache";

    /** The gxf package, installed from this jar's resources into each context's sys.modules, in import order. */
    private static final List<String> GXF_MODULES = List.of("gxf", "gxf.core", "gxf.std", "gxf.cuda",
            "gxf.python_codelet.codelet", "gxf.python_codelet");
    private static final List<String> GXF_PACKAGES = List.of("gxf", "gxf.python_codelet");

    private static final HostAccess HOST_ACCESS = HostAccess.newBuilder(HostAccess.EXPLICIT)
            .allowListAccess(true).allowArrayAccess(true).allowMapAccess(true).build();

    private static final Logger LOG = LoggerFactory.getLogger(PythonRuntime.class);

    private static Engine engine;
    private static final Map<Graph, GraphPython> CONTEXTS = new IdentityHashMap<>();

    private PythonRuntime() {
    }

    /** The graph's Python context, created on first use; every call must be matched by {@link #release}. */
    static synchronized GraphPython acquire(Graph graph) {
        GraphPython gp = CONTEXTS.get(graph);
        if (gp == null) {
            long t0 = System.nanoTime();
            gp = new GraphPython(newContext(), graph);
            LOG.debug("GraalPy context with the gxf package ready in {} ms", (System.nanoTime() - t0) / 1_000_000);
            CONTEXTS.put(graph, gp);
        }
        gp.users++;
        return gp;
    }

    /** Drops one user of the graph's context; the last one closes it. */
    static synchronized void release(Graph graph) {
        GraphPython gp = CONTEXTS.get(graph);
        if (gp != null && --gp.users == 0) {
            CONTEXTS.remove(graph);
            gp.context().close(true);
        }
    }

    /** Graphs with a live Python context (for tests: 0 once every graph using Python is closed). */
    static synchronized int openContexts() {
        return CONTEXTS.size();
    }

    private static Context newContext() {
        Context ctx = Context.newBuilder("python")
                .engine(engine())
                .allowHostAccess(HOST_ACCESS)
                // ctypes views over tensor memory (memoryview without a copy)
                .allowNativeAccess(true)
                // codelet files are imported from disk, as GXF does, and codelets may read files
                .allowIO(IOAccess.ALL)
                .build();
        try {
            installGxf(ctx);
        } catch (RuntimeException e) {
            ctx.close(true);
            throw e;
        }
        return ctx;
    }

    private static void installGxf(Context ctx) {
        ctx.eval(Source.create("python", """
                import sys, types
                def _jk_install(names, packages, files, codes):
                    mods = []
                    for name, file in zip(names, files):
                        m = types.ModuleType(name)
                        m.__file__ = file
                        if name in packages:
                            m.__path__ = []
                        sys.modules[name] = m
                        mods.append(m)
                    for name, m, file, code in zip(names, mods, files, codes):
                        parent, _, child = name.rpartition('.')
                        if parent:
                            setattr(sys.modules[parent], child, m)
                        exec(compile(code, file, 'exec'), m.__dict__)
                """));
        List<String> files = GXF_MODULES.stream().map(PythonRuntime::resourceName).toList();
        List<String> codes = files.stream().map(PythonRuntime::read).toList();
        Value install = ctx.getBindings("python").getMember("_jk_install");
        install.execute(GXF_MODULES, GXF_PACKAGES, files.stream().map(f -> "<jkompute>/" + f).toList(), codes);
        ctx.getBindings("python").removeMember("_jk_install");
    }

    private static String resourceName(String module) {
        String path = module.replace('.', '/');
        return GXF_PACKAGES.contains(module) ? path + "/__init__.py" : path + ".py";
    }

    private static String read(String resource) {
        try (InputStream in = PythonRuntime.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource + " missing from the jkompute-python jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static synchronized Engine engine() {
        if (engine == null) {
            if (System.getProperty(RESOURCE_CACHE) == null) {
                // GraalPy unpacks its standard library from the python-resources jar once; keep it out of $HOME
                System.setProperty(RESOURCE_CACHE, Path.of(System.getProperty("java.io.tmpdir"),
                        "jkompute-graalpy-" + System.getProperty("user.name")).toString());
            }
            long t0 = System.nanoTime();
            engine = Engine.newBuilder("python")
                    // on a JDK without the Graal compiler Truffle interprets; the README says so once, not each run
                    .option("engine.WarnInterpreterOnly", "false")
                    .build();
            LOG.debug("GraalPy engine built in {} ms", (System.nanoTime() - t0) / 1_000_000);
            Runtime.getRuntime().addShutdownHook(new Thread(PythonRuntime::closeEngine, "jkompute-python-engine"));
        }
        return engine;
    }

    private static synchronized void closeEngine() {
        if (engine != null && CONTEXTS.isEmpty()) {
            engine.close();
            engine = null;
        }
    }

    /** A graph's context and the number of PyCodeletV0 components using it. */
    static final class GraphPython {
        private final Context context;
        private final PyContext bridge;
        private final Value classLoader;
        private int users;

        GraphPython(Context context, Graph graph) {
            this.context = context;
            this.bridge = new PyContext(graph);
            this.classLoader = context.eval("python", "import gxf.python_codelet.codelet\n"
                    + "gxf.python_codelet.codelet._load_class");
        }

        /** gxf.python_codelet.codelet._load_class(path, class_name). */
        Value classLoader() {
            return classLoader;
        }

        Context context() {
            return context;
        }

        /** The object Python codelets see as {@code self.context()}. */
        PyContext bridge() {
            return bridge;
        }
    }
}

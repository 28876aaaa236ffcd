package io.jkompute.graph;

import io.jkompute.graph.internal.JavaSourceCompiler;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs a user's {@link CodeletAdapter} subclass (GXF's PyCodeletV0, for Java). Parameters: {@code codelet_name} (the
 * class), {@code codelet_file} (a {@code .java} file compiled in memory at its first load in the JVM, a {@code .jar},
 * or absent / "None" for the class path; relative paths resolve against the YAML file), {@code codelet_params} (a YAML
 * map given to the codelet), and optionally {@code receivers}, {@code transmitters}, {@code allocators},
 * {@code stream_pools}, {@code clock}.
 */
public final class JavaCodelet extends Codelet {
    private static final ConcurrentHashMap<JarVersion, URLClassLoader> JAR_LOADERS = new ConcurrentHashMap<>();

    private record JarVersion(Path path, long size, long modifiedMillis, ClassLoader parent) {
    }

    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public JavaCodelet() {
    }

    private Parameter<String> codeletName;
    private Parameter<String> codeletFile;
    private Parameter<Map<String, Object>> codeletParams;
    private Parameter<List<Receiver>> receivers;
    private Parameter<List<Transmitter>> transmitters;
    private Parameter<List<Allocator>> allocators;
    private Parameter<List<Component>> streamPools;
    private Parameter<List<Component>> cudaStreamPools;
    private Parameter<Clock> clock;
    private CodeletAdapter instance;

    @Override
    protected void registerInterface(Registrar r) {
        codeletName = r.parameter("codelet_name", ParameterTypes.STRING, "the CodeletAdapter class");
        codeletFile = r.optional("codelet_file", ParameterTypes.STRING, ".java file, .jar, or None for the class path");
        codeletParams = r.parameter("codelet_params", ParameterTypes.MAP, "a map handed to the codelet", Map.of());
        receivers = r.handles("receivers", Receiver.class, "receivers the codelet uses");
        transmitters = r.handles("transmitters", Transmitter.class, "transmitters the codelet uses");
        allocators = r.handles("allocators", Allocator.class, "allocators the codelet uses");
        streamPools = r.handles("stream_pools", Component.class, "Vulkan devices or CUDA stream pools");
        cudaStreamPools = r.handles("cuda_stream_pools", Component.class, "GXF's name for stream_pools");
        clock = r.optionalHandle("clock", Clock.class, "the codelet's clock");
    }

    /** Loads (compiling if needed) and instantiates the class, so errors surface at load time. */
    @Override
    protected void initialize() {
        Class<?> cls = loadClass();
        if (!CodeletAdapter.class.isAssignableFrom(cls)) {
            throw new IllegalArgumentException("class " + cls.getName() + " does not extend "
                    + CodeletAdapter.class.getName());
        }
        try {
            instance = (CodeletAdapter) cls.getDeclaredConstructor().newInstance();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("class " + cls.getName() + " needs a public no-argument constructor");
        } catch (ReflectiveOperationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalArgumentException("cannot create " + cls.getName() + ": " + cause, cause);
        }
        instance.bind(this);
        try {
            instance.initialize();
        } catch (GraphException e) {
            throw e;
        } catch (Exception e) {
            SourceLocation where = graph().parameterLocation(this, "codelet_params");
            if (where == null) {
                where = graph().componentLocation(this);
            }
            throw new GraphLoadException(where, "JavaCodelet '" + path() + "' (" + instance.getClass().getName()
                    + "): " + e.getMessage(), e);
        }
    }

    private Class<?> loadClass() {
        String name = codeletName.get();
        String file = codeletFile.orElse("");
        ClassLoader parent = JavaCodelet.class.getClassLoader();
        try {
            if (file.isBlank() || file.equals("None")) {
                return Class.forName(name, true, parent);
            }
            Path path = resolve(file);
            if (!Files.isRegularFile(path)) {
                throw new IllegalArgumentException("codelet_file '" + file + "' not found (looked at " + path + ")");
            }
            if (file.endsWith(".jar")) {
                return Class.forName(name, true, jarLoader(path, parent));
            }
            if (file.endsWith(".java")) {
                return JavaSourceCompiler.compile(path, name, parent);
            }
            throw new IllegalArgumentException("codelet_file '" + file + "' must be a .java or .jar file");
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("class '" + name + "' not found"
                    + (file.isBlank() ? " on the class path" : " in " + file));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot open codelet_file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * One class loader per JVM for each version of a codelet jar (its path, size and modification time), as for a
     * {@code .java} file: a graph loaded again reuses its classes, and reloading does not open the jar once more with
     * a loader nobody closes. A loader stays open while the JVM runs: classes of a live graph may still load from it.
     */
    private static URLClassLoader jarLoader(Path jar, ClassLoader parent) throws IOException {
        Path path = jar.toAbsolutePath().normalize();
        JarVersion key = new JarVersion(path, Files.size(path), Files.getLastModifiedTime(path).toMillis(), parent);
        URLClassLoader loader = JAR_LOADERS.get(key);
        if (loader == null) {
            URLClassLoader created = new URLClassLoader(new URL[] {path.toUri().toURL()}, parent);
            loader = JAR_LOADERS.putIfAbsent(key, created);
            if (loader == null) {
                loader = created;
            } else {
                created.close();
            }
        }
        return loader;
    }

    private Path resolve(String file) {
        Path p = Path.of(file);
        if (p.isAbsolute()) {
            return p;
        }
        SourceLocation where = graph().parameterLocation(this, "codelet_file");
        if (where != null && where.line() > 0) {
            Path yaml = Path.of(where.file()).toAbsolutePath().getParent();
            if (yaml != null) {
                return yaml.resolve(p);
            }
        }
        return p.toAbsolutePath();
    }

    @Override
    public String summary() {
        return instance == null ? null : instance.summary();
    }

    /** The user codelet instance. */
    public CodeletAdapter instance() {
        return instance;
    }

    @Override
    protected void start() throws Exception {
        instance.start();
    }

    @Override
    protected void tick() throws Exception {
        instance.tick();
    }

    @Override
    protected void stop() throws Exception {
        instance.stop();
    }

    Map<String, Object> codeletParams() {
        return codeletParams.get();
    }

    List<Receiver> receiverList() {
        return receivers.get();
    }

    List<Transmitter> transmitterList() {
        return transmitters.get();
    }

    List<Allocator> allocatorList() {
        return allocators.get();
    }

    List<Component> streamPoolList() {
        if (cudaStreamPools.get().isEmpty()) {
            return streamPools.get();
        }
        List<Component> all = new java.util.ArrayList<>(streamPools.get());
        all.addAll(cudaStreamPools.get());
        return List.copyOf(all);
    }

    Clock clockOrDefault() {
        return clock.isSet() ? clock.get() : graph().clock();
    }

    <C extends Component> C lookup(String handle, Class<C> type) {
        int slash = handle.indexOf('/');
        Entity e = slash < 0 ? entity() : graph().entity(handle.substring(0, slash));
        if (e == null) {
            throw new IllegalArgumentException("'" + path() + "': no entity '" + handle.substring(0, slash)
                    + "' for handle '" + handle + "'");
        }
        return e.component(slash < 0 ? handle : handle.substring(slash + 1), type);
    }
}

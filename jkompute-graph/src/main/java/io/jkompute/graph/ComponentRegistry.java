package io.jkompute.graph;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Component types by name. Short names ({@code DoubleBufferReceiver}) and GXF's qualified names
 * ({@code nvidia::gxf::DoubleBufferReceiver}) both work.
 */
public final class ComponentRegistry {
    /** GXF's namespace prefix, accepted as an alias so GXF graph files load unchanged. */
    public static final String GXF_PREFIX = "nvidia::gxf::";

    /** Types registered by optional modules, so that a graph using one without the module says what to add. */
    private static final Map<String, String> OPTIONAL_MODULES = Map.of("PyCodeletV0", "jkompute-python",
            "GPUDevice", "jkompute-graph-cuda", "CudaStreamPool", "jkompute-graph-cuda",
            "CudaStreamSync", "jkompute-graph-cuda");

    private final Map<String, Supplier<? extends Component>> types = new TreeMap<>();
    private final Map<String, String> origin = new TreeMap<>();
    private final List<String> extensions = new ArrayList<>();
    private final List<DeviceMemoryProvider> deviceMemory = new java.util.concurrent.CopyOnWriteArrayList<>();
    private String registering = "?";

    // package-private: tests build a registry without the extensions discovered on the class path
    ComponentRegistry() {
    }

    /** The standard types plus every extension on the class/module path. */
    public static ComponentRegistry standard() {
        ComponentRegistry r = new ComponentRegistry();
        r.load(ServiceLoader.load(GraphExtension.class, ComponentRegistry.class.getClassLoader()));
        if (!r.types.containsKey("DoubleBufferReceiver")) {
            // running from a layout where the service file is not visible: register the standard set directly
            r.add(new io.jkompute.graph.std.StandardExtension());
        }
        return r;
    }

    /** Adds the extension jars listed in a GXF-style manifest ({@code extensions: [path.jar, ...]}). */
    public ComponentRegistry loadManifest(Path manifest) {
        Object doc;
        try {
            doc = new Load(LoadSettings.builder().setLabel(manifest.toString()).build())
                    .loadFromString(Files.readString(manifest));
        } catch (IOException e) {
            throw new GraphLoadException(new SourceLocation(manifest.toString(), 0), "cannot read manifest: " + e, e);
        } catch (RuntimeException e) {
            throw new GraphLoadException(new SourceLocation(manifest.toString(), 0), "bad YAML: " + e.getMessage(), e);
        }
        if (!(doc instanceof Map<?, ?> m) || !(m.get("extensions") instanceof List<?> list)) {
            throw new GraphLoadException(new SourceLocation(manifest.toString(), 1),
                    "expected a manifest 'extensions: [path/to/extension.jar, ...]'");
        }
        List<URL> urls = new ArrayList<>();
        for (Object o : list) {
            Path jar = manifest.toAbsolutePath().getParent().resolve(String.valueOf(o));
            if (!Files.isRegularFile(jar)) {
                throw new GraphLoadException(new SourceLocation(manifest.toString(), 0),
                        "extension jar '" + o + "' not found (looked at " + jar + ")");
            }
            try {
                urls.add(jar.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new GraphLoadException(new SourceLocation(manifest.toString(), 0), "bad path " + jar, e);
            }
        }
        URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ComponentRegistry.class.getClassLoader());
        int before = extensions.size();
        for (GraphExtension ext : ServiceLoader.load(GraphExtension.class, loader)) {
            if (!extensions.contains(ext.name())) {
                add(ext);
            }
        }
        if (extensions.size() == before && !urls.isEmpty()) {
            throw new GraphLoadException(new SourceLocation(manifest.toString(), 0), "the jars " + list
                    + " declare no io.jkompute.graph.GraphExtension in META-INF/services");
        }
        return this;
    }

    private void load(ServiceLoader<GraphExtension> loader) {
        for (GraphExtension ext : loader) {
            add(ext);
        }
    }

    /** Registers an extension's types now. */
    public ComponentRegistry add(GraphExtension ext) {
        registering = ext.name();
        ext.register(this);
        extensions.add(ext.name());
        return this;
    }

    /** Registers one type under its short name. */
    public void register(String name, Supplier<? extends Component> factory) {
        String key = shortName(name);
        if (types.containsKey(key)) {
            throw new IllegalStateException("component type '" + key + "' registered by both " + origin.get(key)
                    + " and " + registering);
        }
        types.put(key, factory);
        origin.put(key, registering);
    }

    /** Registers a supplier of non-Vulkan device memory (see {@link DeviceMemoryProvider}). */
    public void registerDeviceMemory(DeviceMemoryProvider provider) {
        deviceMemory.add(java.util.Objects.requireNonNull(provider, "provider"));
    }

    /**
     * The first registered device memory provider that serves {@code graph}, or null when none does (device
     * allocators then need a VulkanDevice). A provider's refusal to run (one line) propagates.
     */
    public DeviceMemoryProvider deviceMemory(Graph graph) {
        for (DeviceMemoryProvider p : deviceMemory) {
            if (p.serves(graph)) {
                return p;
            }
        }
        return null;
    }

    /** Whether a type name (short or {@code nvidia::gxf::}) is known. */
    public boolean contains(String name) {
        return types.containsKey(shortName(name));
    }

    /** A new component of the type; throws with the list of known types when unknown. */
    public Component create(String name) {
        Supplier<? extends Component> f = types.get(shortName(name));
        if (f == null && OPTIONAL_MODULES.containsKey(shortName(name))) {
            throw new IllegalArgumentException(shortName(name) + " needs the " + OPTIONAL_MODULES.get(shortName(name))
                    + " module on the class path (./jkompute adds it when built with it: ./jkompute build)");
        }
        if (f == null) {
            throw new IllegalArgumentException("unknown component type '" + name + "'; known types: "
                    + String.join(", ", types.keySet()));
        }
        return f.get();
    }

    /** Known type names. */
    public List<String> typeNames() {
        return List.copyOf(types.keySet());
    }

    /** Loaded extension names. */
    public List<String> extensionNames() {
        return List.copyOf(extensions);
    }

    static String shortName(String name) {
        return name.startsWith(GXF_PREFIX) ? name.substring(GXF_PREFIX.length()) : name;
    }
}

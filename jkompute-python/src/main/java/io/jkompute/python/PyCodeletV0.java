package io.jkompute.python;

import io.jkompute.graph.Allocator;
import io.jkompute.graph.Clock;
import io.jkompute.graph.Codelet;
import io.jkompute.graph.Component;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.SourceLocation;
import io.jkompute.graph.Transmitter;
import io.jkompute.python.internal.PyCodelet;
import io.jkompute.python.internal.PyCodeletBridge;
import io.jkompute.python.internal.PyFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * GXF's {@code nvidia::gxf::PyCodeletV0}: runs the Python class {@code codelet_name} from {@code codelet_file}
 * (a relative path resolves against the YAML file's folder, else against the working directory as GXF resolves it;
 * "None" or empty looks in {@code __main__}) in the process's embedded CPython
 * context. {@code codelet_params} (YAML text or a map) reaches Python through {@code get_params()}; the optional
 * {@code receivers}, {@code transmitters}, {@code allocators}, {@code cuda_stream_pools} (or {@code stream_pools}) and
 * {@code clock} through the matching {@code CodeletAdapter} getters. The module is imported when the graph loads (so
 * a missing file, class or syntax error is a load error); as in GXF the class is instantiated with no arguments and
 * {@code set_bridge} is called at {@code start()}.
 */
public final class PyCodeletV0 extends Codelet {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public PyCodeletV0() {
    }

    private Parameter<String> codeletName;
    private Parameter<String> codeletFile;
    private Parameter<String> codeletParams;
    private Parameter<List<Receiver>> receivers;
    private Parameter<List<Transmitter>> transmitters;
    private Parameter<List<Allocator>> allocators;
    private Parameter<List<Component>> cudaStreamPools;
    private Parameter<List<Component>> streamPools;
    private Parameter<Clock> clock;

    private PythonRuntime.GraphPython python;
    private PyCodelet codelet;

    @Override
    protected void registerInterface(Registrar r) {
        codeletName = r.parameter("codelet_name", ParameterTypes.STRING, "the Python CodeletAdapter class");
        codeletFile = r.parameter("codelet_file", ParameterTypes.STRING, "the .py file, or None for __main__");
        codeletParams = r.optional("codelet_params", ParameterTypes.STRING, "YAML handed to get_params()");
        receivers = r.handles("receivers", Receiver.class, "receivers, for get_receivers()");
        transmitters = r.handles("transmitters", Transmitter.class, "transmitters, for get_transmitters()");
        allocators = r.handles("allocators", Allocator.class, "allocators, for get_allocators()");
        cudaStreamPools = r.handles("cuda_stream_pools", Component.class, "stream pools, for get_cuda_stream_pools()");
        streamPools = r.handles("stream_pools", Component.class, "jkompute's name for cuda_stream_pools");
        clock = r.optionalHandle("clock", Clock.class, "the clock get_clock() returns (else the scheduler's)");
    }

    @Override
    protected void initialize() {
        String file = codeletFile.get().strip();
        String path = file.isEmpty() || file.equals("None") ? "None" : resolve(file);
        python = PythonRuntime.acquire(graph());
        try {
            python.bridge().register(this);
            codelet = call(() -> PyCodelet.load(path, codeletName.get()));
        } catch (RuntimeException e) {
            python = null;
            PythonRuntime.release(graph());
            throw e;
        }
    }

    @Override
    protected void deinitialize() {
        if (python != null) {
            if (codelet != null) {
                codelet.close();
                codelet = null;
            }
            python = null;
            PythonRuntime.release(graph());
        }
    }

    @Override
    protected void start() {
        PyCodeletBridge bridge = new PyCodeletBridge(this, python.bridge(), params(), receivers.get(),
                transmitters.get(), allocators.get(), pools(), this::clockOrDefault);
        run(() -> codelet.start(bridge));
    }

    @Override
    protected void tick() {
        try {
            codelet.tick();
        } catch (PyFailure e) {
            throw PythonErrors.translate(e);
        }
    }

    @Override
    protected void stop() {
        run(codelet::stop);
    }

    private Object params() {
        if (!codeletParams.isSet()) {
            return null;
        }
        String text = codeletParams.get();
        return text.isBlank() ? null : new Load(LoadSettings.builder().build()).loadFromString(text);
    }

    private List<Component> pools() {
        List<Component> all = new ArrayList<>(cudaStreamPools.get());
        all.addAll(streamPools.get());
        return List.copyOf(all);
    }

    private Clock clockOrDefault() {
        return clock.isSet() ? clock.get() : graph().clock();
    }

    /**
     * The codelet file: an absolute path as it is; a relative one against the YAML file's folder (jkompute's apps), else
     * against the working directory, which is how GXF resolves it (its tests name files from the workspace root, e.g.
     * {@code gxf/python/tests/PingTx.py}, and run there).
     */
    private String resolve(String file) {
        Path p = Path.of(file);
        List<Path> candidates = new ArrayList<>();
        if (p.isAbsolute()) {
            candidates.add(p);
        } else {
            SourceLocation where = graph().parameterLocation(this, "codelet_file");
            if (where != null && where.line() > 0) {
                candidates.add(Path.of(where.file()).toAbsolutePath().getParent().resolve(p).normalize());
            }
            Path inWorkingDir = p.toAbsolutePath().normalize();
            if (!candidates.contains(inWorkingDir)) {
                candidates.add(inWorkingDir);
            }
        }
        for (Path c : candidates) {
            if (Files.isRegularFile(c)) {
                return c.toString();
            }
        }
        throw new IllegalArgumentException("codelet_file '" + file + "' not found (looked at "
                + String.join(", ", candidates.stream().map(Path::toString).toList()) + ")");
    }

    /** Runs Python code, turning a Python exception into one that names the .py file and line. */
    private static <T> T call(java.util.function.Supplier<T> action) {
        try {
            return action.get();
        } catch (PyFailure e) {
            throw PythonErrors.translate(e);
        }
    }

    private static void run(Runnable action) {
        try {
            action.run();
        } catch (PyFailure e) {
            throw PythonErrors.translate(e);
        }
    }
}

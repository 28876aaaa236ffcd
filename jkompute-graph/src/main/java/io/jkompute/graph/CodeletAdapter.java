package io.jkompute.graph;

import java.util.List;
import java.util.Map;

/**
 * Base class of codelets loaded by a {@link JavaCodelet} component (GXF's Python CodeletAdapter, in Java). The class
 * needs a public no-argument constructor. Override {@link #start()}, {@link #tick()}, {@link #stop()}; read
 * {@link #params()} (the {@code codelet_params} map) and look up queues by handle name ("comp" or "entity/comp").
 */
public abstract class CodeletAdapter {
    /** For subclasses. */
    protected CodeletAdapter() {
    }

    private JavaCodelet bridge;

    /**
     * Called once when the graph loads, after the parameters are bound: check {@link #params()} here, so a bad value
     * fails the load with a {@link GraphLoadException} naming the file and line of {@code codelet_params}, not the
     * run later. Queues and allocators may not be usable yet; look them up in {@link #start()}.
     */
    public void initialize() throws Exception {
    }

    /** Called once before the first tick. */
    public void start() throws Exception {
    }

    /** Called whenever the entity's scheduling terms say READY. */
    public abstract void tick() throws Exception;

    /** Called once after the last tick. */
    public void stop() throws Exception {
    }

    /** One short line on what the codelet achieved in the run, e.g. "200 frames verified"; null for nothing. */
    public String summary() {
        return null;
    }

    final void bind(JavaCodelet b) {
        bridge = b;
    }

    private JavaCodelet bridge() {
        if (bridge == null) {
            throw new IllegalStateException(getClass().getName() + " is not attached to a JavaCodelet component");
        }
        return bridge;
    }

    /** The id of the entity holding this codelet (GXF's eid). */
    public final long eid() {
        return bridge().eid();
    }

    /** The id of the JavaCodelet component (GXF's cid). */
    public final long cid() {
        return bridge().cid();
    }

    /** The JavaCodelet component's name. */
    public final String name() {
        return bridge().name();
    }

    /** The graph this codelet runs in. */
    public final Graph graph() {
        return bridge().graph();
    }

    /** The entity holding this codelet. */
    public final Entity entity() {
        return bridge().entity();
    }

    /** Clock time (ns) at the beginning of the current start/tick/stop. */
    public final long executionTimestamp() {
        return bridge().executionTimestamp();
    }

    /** The clock's time at the start of this execution, in seconds. */
    public final double executionTime() {
        return bridge().executionTime();
    }

    /** Seconds since the previous execution (0 during start and stop). */
    public final double deltaTime() {
        return bridge().deltaTime();
    }

    /** 0 in start, 1 in the first tick, incremented before every tick. */
    public final long executionCount() {
        return bridge().executionCount();
    }

    /** True in the first tick. */
    public final boolean isFirstTick() {
        return bridge().isFirstTick();
    }

    /** The {@code codelet_params} map (empty when not given). */
    public final Map<String, Object> params() {
        return bridge().codeletParams();
    }

    /** A string parameter from {@code codelet_params}; throws naming the key when missing. */
    public final String param(String key) {
        Object v = params().get(key);
        if (v == null) {
            throw new IllegalArgumentException("codelet_params of '" + bridge().path() + "' has no '" + key + "'");
        }
        return String.valueOf(v);
    }

    /** A long from {@code codelet_params} (numbers or numeric strings). */
    public final long longParam(String key) {
        Object v = params().get(key);
        if (v instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(param(key).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("codelet_params '" + key + "' of '" + bridge().path()
                    + "' must be an integer, got '" + v + "'");
        }
    }

    /** The receivers listed in the {@code receivers} parameter. */
    public final List<Receiver> receivers() {
        return bridge().receiverList();
    }

    /** The transmitters listed in the {@code transmitters} parameter. */
    public final List<Transmitter> transmitters() {
        return bridge().transmitterList();
    }

    /** The allocators listed in the {@code allocators} parameter. */
    public final List<Allocator> allocators() {
        return bridge().allocatorList();
    }

    /** The stream pools (Vulkan devices or CUDA stream pools) listed in {@code stream_pools}. */
    public final List<Component> streamPools() {
        return bridge().streamPoolList();
    }

    /** The {@code clock} parameter, else the scheduler's clock. */
    public final Clock clock() {
        return bridge().clockOrDefault();
    }

    /** A receiver by handle ("comp" in this entity, or "entity/comp"). */
    public final Receiver receiver(String handle) {
        return component(handle, Receiver.class);
    }

    /** A transmitter by handle ("comp" in this entity, or "entity/comp"). */
    public final Transmitter transmitter(String handle) {
        return component(handle, Transmitter.class);
    }

    /** An allocator by handle ("comp" in this entity, or "entity/comp"). */
    public final Allocator allocator(String handle) {
        return component(handle, Allocator.class);
    }

    /** Any component by handle and type, e.g. a scheduling term to steer. */
    public final <C extends Component> C component(String handle, Class<C> type) {
        return bridge().lookup(handle, type);
    }
}

package io.jkompute.graph;

import io.jkompute.graph.std.GreedyScheduler;
import io.jkompute.graph.std.RealtimeClock;
import io.jkompute.graph.yaml.YamlGraphReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A graph (GXF's context): entities with their components, one scheduler and its clock. Build it from YAML
 * ({@link #load(Path...)}, {@link #loader()}) or from Java ({@link #create()}, {@link #addEntity(String)}), then
 * {@link #run()} it (or {@link #runAsync()} / {@link #interrupt()} / {@link #await()}), then {@link #close()} it.
 * A graph runs once.
 */
public final class Graph implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Graph.class);

    private enum State { BUILDING, ACTIVE, RUNNING, DONE, CLOSED }

    private record Raw(Object value, SourceLocation location) {
    }

    private static final class Binding {
        final Map<String, Parameter<?>> parameters;
        final Map<String, Raw> raw = new LinkedHashMap<>();
        final SourceLocation location;

        Binding(Map<String, Parameter<?>> parameters, SourceLocation location) {
            this.parameters = parameters;
            this.location = location;
        }
    }

    private final ComponentRegistry registry;
    private final Map<String, Entity> entities = new LinkedHashMap<>();
    private final Map<Component, Binding> bindings = new IdentityHashMap<>();
    private final List<Component> components = new ArrayList<>();
    private long nextId = 1;
    private int unnamedEntities;
    private volatile State state = State.BUILDING;
    private Scheduler scheduler;
    private volatile Clock clock;
    private volatile ExecutionContext context;
    /** A failure reported before the run started (under this graph's lock); it ends the run as soon as it starts. */
    private GraphException failureBeforeRun;
    private Thread runner;
    private volatile RunResult result;
    private volatile Throwable failure;
    /** While running: the process's stop (Ctrl-C, SIGTERM) interrupts this run before any Manager is closed. */
    private volatile io.jkompute.Shutdown.Registration onStop;
    private final java.util.concurrent.CountDownLatch closedLatch = new java.util.concurrent.CountDownLatch(1);
    private long runStart;
    /** Pollers with the spin each asked for (under its own lock); the two fields after it are derived from it. */
    private final List<PollerSpin> pollerSpins = new ArrayList<>();
    private volatile Poller[] pollers = {};
    private volatile long pollSpinNs;

    private record PollerSpin(Poller poller, long spinNs) {
    }

    private Graph(ComponentRegistry registry) {
        this.registry = registry;
    }

    /** An empty graph knowing the standard component types and the extensions on the class path. */
    public static Graph create() {
        return new Graph(ComponentRegistry.standard());
    }

    /** An empty graph with the given registry (e.g. one with manifest extensions loaded). */
    public static Graph create(ComponentRegistry registry) {
        return new Graph(registry);
    }

    /** Loads and activates YAML app files (later files may override parameters of earlier ones). */
    public static Graph load(Path... files) {
        Loader l = loader();
        for (Path f : files) {
            l.file(f);
        }
        return l.load();
    }

    /** A loader for files, manifests and {@code entity/component/parameter=value} overrides. */
    public static Loader loader() {
        return new Loader();
    }

    /** Collects what a graph is loaded from. */
    public static final class Loader {
        private final List<Path> files = new ArrayList<>();
        private final List<Path> manifests = new ArrayList<>();
        private final List<String> overrides = new ArrayList<>();

        private Loader() {
        }

        /** Adds an app file; later files override earlier ones. */
        public Loader file(Path file) {
            files.add(file);
            return this;
        }

        /** A manifest listing extension jars. */
        public Loader manifest(Path manifest) {
            manifests.add(manifest);
            return this;
        }

        /** An override {@code entity/component/parameter=value}; the value is read as YAML. */
        public Loader param(String override) {
            overrides.add(override);
            return this;
        }

        /** Reads everything and activates the graph; errors name file and line. */
        public Graph load() {
            ComponentRegistry registry = ComponentRegistry.standard();
            for (Path m : manifests) {
                registry.loadManifest(m);
            }
            Graph g = new Graph(registry);
            try {
                YamlGraphReader reader = new YamlGraphReader(g);
                for (Path f : files) {
                    reader.read(f);
                }
                for (String o : overrides) {
                    reader.override(o);
                }
                g.activate();
                return g;
            } catch (RuntimeException e) {
                g.close();
                throw e;
            }
        }
    }

    // ---- building ----------------------------------------------------------------------------------------

    /** Adds an entity (null name = unnamed, e.g. a connection entity). */
    public Entity addEntity(String name) {
        return addEntity(name, SourceLocation.JAVA_API);
    }

    /** Adds an entity, remembering where it was defined; an existing entity of that name is returned instead. */
    public Entity addEntity(String name, SourceLocation location) {
        checkBuilding();
        String n = name == null || name.isBlank() ? "_entity_" + (++unnamedEntities) : name;
        if (n.contains("/")) {
            throw new GraphLoadException(location, "entity name '" + n + "' must not contain '/'");
        }
        Entity existing = entities.get(n);
        if (existing != null) {
            return existing;
        }
        Entity e = new Entity(this, n, nextId++, location);
        entities.put(n, e);
        return e;
    }

    /** Adds a component of a registered type to an entity. */
    public Component addComponent(Entity entity, String type, String name, SourceLocation location) {
        checkBuilding();
        Component c;
        try {
            c = registry.create(type);
        } catch (IllegalArgumentException e) {
            throw new GraphLoadException(location, e.getMessage());
        }
        attachComponent(entity, c, ComponentRegistry.shortName(type), name, location);
        return c;
    }

    void attachComponent(Entity entity, Component c, String typeName, String name, SourceLocation location) {
        checkBuilding();
        if (c.entity() != null) {
            throw new GraphLoadException(location, c + " already belongs to a graph");
        }
        String n = name == null || name.isBlank() ? "_" + typeName + "_" + entity.components().size() : name;
        if (n.contains("/")) {
            throw new GraphLoadException(location, "component name '" + n + "' must not contain '/'");
        }
        if (entity.hasComponent(n)) {
            throw new GraphLoadException(location, "entity '" + entity.name() + "' already has a component named '"
                    + n + "'");
        }
        c.attach(entity, n, nextId++, typeName);
        Registrar r = new Registrar();
        c.registerInterface(r);
        bindings.put(c, new Binding(r.parameters(), location));
        components.add(c);
        entity.register(n, c);
    }

    /** Sets a parameter's raw value (Long, Double, Boolean, String, List, Map or a Component); parsed at activation. */
    public void setParameter(Component c, String key, Object value, SourceLocation location) {
        checkBuilding();
        Binding b = bindings.get(c);
        if (b == null) {
            throw new IllegalArgumentException(c + " is not part of this graph");
        }
        if (!b.parameters.containsKey(key)) {
            throw new GraphLoadException(location, "unknown parameter '" + key + "' for " + c.typeName() + " '"
                    + c.path() + "'; its parameters are " + b.parameters.keySet());
        }
        b.raw.put(key, new Raw(value, location));
    }

    /** Sets a parameter from Java. */
    public void setParameter(Component c, String key, Object value) {
        setParameter(c, key, value, SourceLocation.JAVA_API);
    }

    /** Where a parameter's value was given (its file decides how relative paths resolve), or null. */
    public SourceLocation parameterLocation(Component c, String key) {
        Binding b = bindings.get(c);
        Raw raw = b == null ? null : b.raw.get(key);
        return raw == null ? null : raw.location;
    }

    /** Where a component was defined. */
    public SourceLocation componentLocation(Component c) {
        Binding b = bindings.get(c);
        return b == null ? null : b.location;
    }

    /** The entity with this name, or null. */
    public Entity entity(String name) {
        return entities.get(name);
    }

    /** All entities in definition order. */
    public Collection<Entity> entities() {
        return List.copyOf(entities.values());
    }

    /** The component at {@code entity/component}; throws if absent or of another type. */
    public <C extends Component> C component(String path, Class<C> type) {
        int slash = path.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("expected 'entity/component', got '" + path + "'");
        }
        Entity e = entities.get(path.substring(0, slash));
        if (e == null) {
            throw new IllegalArgumentException("no entity '" + path.substring(0, slash) + "'; entities are "
                    + entities.keySet());
        }
        return e.component(path.substring(slash + 1), type);
    }

    /** The component types this graph can make, by name. */
    public ComponentRegistry registry() {
        return registry;
    }

    // ---- activation --------------------------------------------------------------------------------------

    /** Parses every parameter, resolves handles, initializes components; errors name file and line. */
    public void activate() {
        if (state != State.BUILDING) {
            return;
        }
        for (Component c : components) {
            bindParameters(c);
        }
        List<Scheduler> schedulers = new ArrayList<>();
        for (Component c : components) {
            if (c instanceof Scheduler s) {
                schedulers.add(s);
            }
        }
        if (schedulers.size() > 1) {
            throw new GraphLoadException(componentLocation(schedulers.get(1)), "a graph takes one scheduler; found "
                    + schedulers.stream().map(Component::path).toList());
        }
        List<Component> initialized = new ArrayList<>();
        try {
            for (Component c : components) {
                try {
                    c.initialize();
                } catch (GraphException e) {
                    throw e;
                } catch (RuntimeException e) {
                    throw new GraphLoadException(componentLocation(c), c.typeName() + " '" + c.path() + "': "
                            + e.getMessage(), e);
                }
                initialized.add(c);
            }
        } catch (RuntimeException e) {
            for (int i = initialized.size() - 1; i >= 0; i--) {
                deinit(initialized.get(i));
            }
            throw e;
        }
        if (schedulers.isEmpty()) {
            LOG.warn("no scheduler in the graph; using a GreedyScheduler on a RealtimeClock");
            Entity e = addEntityUnchecked("_default_scheduler");
            RealtimeClock rc = new RealtimeClock();
            attachComponent(e, rc, "RealtimeClock", "clock", SourceLocation.JAVA_API);
            GreedyScheduler gs = new GreedyScheduler();
            attachComponent(e, gs, "GreedyScheduler", "scheduler", SourceLocation.JAVA_API);
            setParameter(gs, "clock", rc);
            bindParameters(rc);
            bindParameters(gs);
            ((Component) rc).initialize();
            ((Component) gs).initialize();
            schedulers.add(gs);
        }
        scheduler = schedulers.get(0);
        clock = scheduler.clock();
        for (Entity e : entities.values()) {
            Set<SchedulingTerm> combined = new HashSet<>();
            for (SchedulingTerm t : e.allTerms) {
                combined.addAll(t.combinedTerms());
            }
            e.terms = e.allTerms.stream().filter(t -> !combined.contains(t)).toArray(SchedulingTerm[]::new);
            e.freezeComponents();
        }
        state = State.ACTIVE;
    }

    private Entity addEntityUnchecked(String name) {
        Entity e = new Entity(this, name, nextId++, SourceLocation.JAVA_API);
        entities.put(name, e);
        return e;
    }

    private void bindParameters(Component c) {
        Binding b = bindings.get(c);
        ParameterType.HandleResolver resolver = new ParameterType.HandleResolver() {
            @Override
            public <C extends Component> C resolve(String handle, Class<C> type) {
                return resolveHandle(c.entity(), handle, type);
            }
        };
        for (Parameter<?> p : b.parameters.values()) {
            Raw raw = b.raw.get(p.key());
            if (raw == null) {
                if (p.mandatory()) {
                    throw new GraphLoadException(b.location, c.typeName() + " '" + c.path()
                            + "': mandatory parameter '" + p.key() + "' (" + p.type().describe() + ") is missing");
                }
                continue;
            }
            try {
                p.setParsed(p.type().parse(raw.value, resolver));
            } catch (IllegalArgumentException e) {
                throw new GraphLoadException(raw.location, c.typeName() + " '" + c.path() + "': parameter '"
                        + p.key() + "': " + e.getMessage(), e);
            }
        }
    }

    private <C extends Component> C resolveHandle(Entity owner, String handle, Class<C> type) {
        int slash = handle.indexOf('/');
        Entity e = owner;
        String comp = handle;
        if (slash >= 0) {
            e = entities.get(handle.substring(0, slash));
            comp = handle.substring(slash + 1);
            if (e == null) {
                throw new IllegalArgumentException("dangling handle '" + handle + "': no entity '"
                        + handle.substring(0, slash) + "' (entities: " + entities.keySet() + ")");
            }
        }
        Component c = e.component(comp);
        if (c == null) {
            throw new IllegalArgumentException("dangling handle '" + handle + "': entity '" + e.name()
                    + "' has no component '" + comp + "' (it has " + e.components().stream().map(Component::name).toList() + ")");
        }
        if (!type.isInstance(c)) {
            throw new IllegalArgumentException("handle '" + handle + "' is a " + c.typeName() + ", expected a "
                    + type.getSimpleName());
        }
        return type.cast(c);
    }

    // ---- running -----------------------------------------------------------------------------------------

    /** The scheduler's clock time in ns (0 before activation). */
    public long now() {
        Clock c = clock;
        return c == null ? 0 : c.timestamp();
    }

    /** The clock the scheduler runs on. */
    public Clock clock() {
        activate();
        return clock;
    }

    /** The graph's scheduler; activates the graph first if it is not yet active. */
    public Scheduler scheduler() {
        activate();
        return scheduler;
    }

    /** An external event for an entity: event-based schedulers re-evaluate it, waiting schedulers wake up. */
    public void notify(Entity e) {
        ExecutionContext ctx = context;
        if (ctx != null) {
            ctx.notifyEvent(e);
        }
    }

    /**
     * Registers work from outside the graph that a scheduler thread with nothing to run does itself for up to
     * {@code spinNs} after its last event before it parks (the longest any registered poller asks for); see
     * {@link Poller}. Components register in {@code initialize()} and remove theirs in {@code deinitialize()}.
     */
    public void addPoller(Poller p, long spinNs) {
        if (spinNs < 0) {
            throw new IllegalArgumentException("spinNs must be ≥ 0, got " + spinNs);
        }
        synchronized (pollerSpins) {
            pollerSpins.add(new PollerSpin(p, spinNs));
            pollersChanged();
        }
    }

    /** Removes a poller added with {@link #addPoller} (its first registration, if added twice). */
    public void removePoller(Poller p) {
        synchronized (pollerSpins) {
            for (int i = 0; i < pollerSpins.size(); i++) {
                if (pollerSpins.get(i).poller() == p) {
                    pollerSpins.remove(i);
                    pollersChanged();
                    return;
                }
            }
        }
    }

    private void pollersChanged() {
        pollers = pollerSpins.stream().map(PollerSpin::poller).toArray(Poller[]::new);
        pollSpinNs = pollerSpins.stream().mapToLong(PollerSpin::spinNs).max().orElse(0);
    }

    /** The registered pollers (an array the caller must not change). */
    Poller[] pollers() {
        return pollers;
    }

    /** How long a waiting scheduler thread polls before it parks, while pollers are registered. */
    long pollSpinNs() {
        return pollSpinNs;
    }

    /**
     * Stops the run with a failure found outside the scheduler (a network link that broke); {@link #await()} then
     * throws it. The first failure wins. A failure reported before the run starts (components with threads of their
     * own, such as a network link, work from activation on) is kept and ends the run as soon as it starts.
     */
    public void fail(GraphException failure) {
        ExecutionContext ctx;
        synchronized (this) {
            ctx = context;
            if (ctx == null) {
                if (failureBeforeRun == null) {
                    failureBeforeRun = failure;
                }
                return;
            }
        }
        ctx.fail(failure);
    }

    /** Runs to the end; throws {@link GraphExecutionException} if a codelet or queue failed. */
    public RunResult run() {
        runAsync();
        return await();
    }

    /** Starts the run on a new thread and returns at once. */
    public synchronized void runAsync() {
        activate();
        if (state != State.ACTIVE) {
            throw new IllegalStateException("the graph is " + state.name().toLowerCase() + "; a graph runs once");
        }
        if (io.jkompute.Shutdown.isStopping()) {
            throw new IllegalStateException("jkompute is stopping (the JVM is exiting): the graph is not started");
        }
        List<Entity> scheduled = entities.values().stream().filter(e -> !e.codelets.isEmpty()).toList();
        ExecutionContext ctx = new ExecutionContext(this, clock, scheduled);
        if (failureBeforeRun != null) {
            ctx.fail(failureBeforeRun); // the scheduler stops at once; the run ends with this error
        }
        context = ctx;
        state = State.RUNNING;
        runStart = System.nanoTime();
        scheduler.runStarting(ctx);
        runner = new Thread(() -> runLoop(ctx), "jkompute-graph");
        onStop = io.jkompute.Shutdown.onStop("graph run", this::stopForShutdown);
        runner.start();
    }

    private void runLoop(ExecutionContext ctx) {
        Scheduler.StopReport report = null;
        Throwable error = null;
        try {
            report = scheduler.schedule(ctx);
        } catch (Throwable t) {
            error = t;
        }
        if (error == null && ctx.failure() != null) {
            error = ctx.failure();
        }
        if (error == null && report != null && report.reason() == StopReason.DEADLOCK) {
            List<Entity> waiting = ctx.entities().stream().filter(e -> !e.stopped).toList();
            if (ctx.workDone(waiting)) {
                LOG.debug("work done; left waiting:\n{}", report.detail());
                report = new Scheduler.StopReport(StopReason.COMPLETED, "work done: the sources finished and every"
                        + " queue is empty (" + waiting.size() + (waiting.size() == 1 ? " entity" : " entities")
                        + " left waiting for messages)");
            }
        }
        // stop() runs on every started codelet, also after a failure
        for (Entity e : ctx.entities()) {
            try {
                EntityExecutor.stop(e);
            } catch (Throwable t) {
                if (error == null) {
                    error = t;
                } else {
                    LOG.warn("while stopping after a failure: {}", t.getMessage());
                }
            }
        }
        long duration = System.nanoTime() - runStart;
        if (error != null) {
            failure = error instanceof GraphException ? error
                    : new GraphExecutionException(null, null, "scheduler failed: " + error, error);
            result = new RunResult(StopReason.ERROR, failure.getMessage(), duration, statistics(duration));
        } else {
            result = new RunResult(report.reason(), report.detail(), duration, statistics(duration), summaries());
            if (report.reason() == StopReason.DEADLOCK) {
                LOG.debug("graph stopped on deadlock:\n{}", report.detail());
            }
        }
        notifyRunListeners(result);
        state = State.DONE;
        io.jkompute.Shutdown.Registration r = onStop;
        if (r != null) {
            r.close();
        }
    }

    /**
     * The process is exiting: interrupt the run, wait for its entities to stop (their codelets' stop() runs while the
     * GPU still takes work), then give the owner a moment to close the graph, which frees its devices in order.
     */
    private void stopForShutdown() {
        interrupt();
        Thread t;
        synchronized (this) {
            t = runner;
        }
        try {
            if (t != null) {
                t.join(TimeUnit.SECONDS.toMillis(8));
            }
            closedLatch.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The codelets' summaries of the run, "entity/codelet: summary", in declaration order. */
    private List<String> summaries() {
        List<String> out = new ArrayList<>();
        for (Entity e : entities.values()) {
            for (Codelet c : e.codelets) {
                try {
                    String s = c.summary();
                    if (s != null && !s.isBlank()) {
                        out.add(c.path() + ": " + s);
                    }
                } catch (RuntimeException | LinkageError ex) {
                    LOG.warn("{} failed to summarise the run: {}", c, ex.toString());
                }
            }
        }
        return out;
    }

    private void notifyRunListeners(RunResult r) {
        for (Entity e : entities.values()) {
            for (Component c : e.components()) {
                if (c instanceof RunListener l) {
                    try {
                        l.runFinished(r);
                    } catch (Exception | LinkageError ex) {
                        LOG.error("{} failed at the end of the run: {}", c, ex.toString());
                    }
                }
            }
        }
    }

    /** Asks the run to stop; {@link #await()} then returns with {@link StopReason#INTERRUPTED}. */
    public void interrupt() {
        ExecutionContext ctx = context;
        if (ctx != null) {
            ctx.interrupt();
        }
    }

    /** Waits for the run to end; rethrows its failure. */
    public RunResult await() {
        Thread t;
        synchronized (this) {
            t = runner;
        }
        if (t == null) {
            throw new IllegalStateException("the graph was not started; call run() or runAsync()");
        }
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupt();
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure instanceof GraphExecutionException g
                    ? new GraphExecutionException(g.entity(), g.component(), g.getMessage(), g.getCause() == null ? g : g.getCause())
                    : (GraphException) failure;
        }
        return result;
    }

    /** Waits at most {@code timeout}; returns null if the run is still going. */
    public RunResult await(long timeout, TimeUnit unit) throws InterruptedException {
        Thread t;
        synchronized (this) {
            t = runner;
        }
        if (t == null) {
            throw new IllegalStateException("the graph was not started; call run() or runAsync()");
        }
        t.join(Math.max(1, unit.toMillis(timeout)));
        return t.isAlive() ? null : await();
    }

    /** Statistics so far (or of the finished run). */
    public JobStatistics statistics() {
        RunResult r = result;
        return r != null ? r.statistics() : statistics(state == State.RUNNING ? System.nanoTime() - runStart : 0);
    }

    private JobStatistics statistics(long durationNs) {
        List<EntityStatistics> list = new ArrayList<>();
        for (Entity e : entities.values()) {
            if (!e.codelets.isEmpty()) {
                list.add(e.statistics());
            }
        }
        return new JobStatistics(durationNs, List.copyOf(list));
    }

    /** Stops a run still going, then deinitializes every component and drops messages left in queues. */
    @Override
    public void close() {
        if (state == State.CLOSED) {
            return;
        }
        if (state == State.RUNNING) {
            interrupt();
            try {
                await();
            } catch (GraphException e) {
                LOG.debug("run ended with {}", e.getMessage());
            }
        }
        boolean wasActive = state != State.BUILDING;
        state = State.CLOSED;
        try {
            if (wasActive) {
                for (int i = components.size() - 1; i >= 0; i--) {
                    deinit(components.get(i));
                }
            }
        } finally {
            closedLatch.countDown();
        }
    }

    private static void deinit(Component c) {
        try {
            c.deinitialize();
        } catch (RuntimeException e) {
            LOG.warn("deinitializing {} failed: {}", c, e.toString());
        }
    }

    private void checkBuilding() {
        if (state != State.BUILDING) {
            throw new IllegalStateException("the graph is activated; components and parameters are fixed now");
        }
    }

    /** Entities by name, for tests and tools. */
    Map<String, Entity> entityMap() {
        return new HashMap<>(entities);
    }
}

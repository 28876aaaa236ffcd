package io.jkompute.graph;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A named container of components; the node of the graph and the unit the scheduler executes. */
public final class Entity {
    private final Graph graph;
    private final String name;
    private final long eid;
    private final SourceLocation location;
    private final Map<String, Component> byName = new LinkedHashMap<>();
    final List<Codelet> codelets = new ArrayList<>();
    final List<Receiver> receivers = new ArrayList<>();
    final List<Transmitter> transmitters = new ArrayList<>();
    final List<SchedulingTerm> allTerms = new ArrayList<>();
    /** Confines the entity's executions to CPUs when it holds a CPUThread with pin_cores. */
    io.jkompute.graph.std.CPUThread cpuThread;
    /** Terms AND-combined by the executor (those not owned by an OR combiner); fixed at activation. */
    SchedulingTerm[] terms = new SchedulingTerm[0];
    // array copies of the lists above, fixed at activation: the executor's per-tick loops make no iterator
    Codelet[] codeletArray = new Codelet[0];
    Receiver[] receiverArray = new Receiver[0];
    Transmitter[] transmitterArray = new Transmitter[0];
    SchedulingTerm[] allTermArray = new SchedulingTerm[0];
    /** "in NAME": where a message created in this entity's tick comes from (made once, not per message). */
    final String messageOrigin;

    // run state, touched only by the thread executing the entity
    boolean started;
    boolean stopped;
    final CodeletStatistics.Counter stats = new CodeletStatistics.Counter();

    Entity(Graph graph, String name, long eid, SourceLocation location) {
        this.graph = graph;
        this.name = name;
        this.eid = eid;
        this.location = location;
        this.messageOrigin = "in " + name;
    }

    /** Copies the component lists into the arrays the executor iterates (at activation). */
    void freezeComponents() {
        codeletArray = codelets.toArray(new Codelet[0]);
        receiverArray = receivers.toArray(new Receiver[0]);
        transmitterArray = transmitters.toArray(new Transmitter[0]);
        allTermArray = allTerms.toArray(new SchedulingTerm[0]);
    }

    /** The entity's name in the app. */
    public String name() {
        return name;
    }

    /** The entity's id (GXF's eid). */
    public long eid() {
        return eid;
    }

    /** The graph holding this entity. */
    public Graph graph() {
        return graph;
    }

    /** Where the entity was defined. */
    public SourceLocation location() {
        return location;
    }

    /** Adds a component of a registered type (short name or {@code nvidia::gxf::} name); null name = unnamed. */
    public Component add(String type, String componentName) {
        return graph.addComponent(this, type, componentName, SourceLocation.JAVA_API);
    }

    /** Adds a component instance (e.g. a user codelet) under a name. */
    public <C extends Component> C add(C component, String componentName) {
        graph.attachComponent(this, component, component.getClass().getSimpleName(), componentName,
                SourceLocation.JAVA_API);
        return component;
    }

    /** The component with this name, or null. */
    public Component component(String componentName) {
        return byName.get(componentName);
    }

    /** The component with this name and type; throws if absent or of another type. */
    public <C extends Component> C component(String componentName, Class<C> type) {
        Component c = byName.get(componentName);
        if (c == null) {
            throw new IllegalArgumentException("entity '" + name + "' has no component '" + componentName
                    + "'; it has " + byName.keySet());
        }
        if (!type.isInstance(c)) {
            throw new IllegalArgumentException("'" + c.path() + "' is a " + c.typeName() + ", not a "
                    + type.getSimpleName());
        }
        return type.cast(c);
    }

    /** All components in declaration order. */
    public Collection<Component> components() {
        return List.copyOf(byName.values());
    }

    /** All components of a type, in declaration order. */
    public <C> List<C> components(Class<C> type) {
        List<C> out = new ArrayList<>();
        for (Component c : byName.values()) {
            if (type.isInstance(c)) {
                out.add(type.cast(c));
            }
        }
        return out;
    }

    /** Codelets in tick order. */
    public List<Codelet> codelets() {
        return List.copyOf(codelets);
    }

    /** Whether the entity has started and not yet stopped. */
    public boolean isActive() {
        return started && !stopped;
    }

    /** Ticks of this entity in the current or last run. */
    public long tickCount() {
        return stats.ticks;
    }

    boolean hasComponent(String componentName) {
        return byName.containsKey(componentName);
    }

    void register(String componentName, Component c) {
        byName.put(componentName, c);
        if (c instanceof Codelet k) {
            codelets.add(k);
        }
        if (c instanceof Receiver r) {
            receivers.add(r);
        }
        if (c instanceof io.jkompute.graph.std.CPUThread t) {
            cpuThread = t;
        }
        if (c instanceof Transmitter t) {
            transmitters.add(t);
        }
        if (c instanceof SchedulingTerm s) {
            allTerms.add(s);
        }
    }

    EntityStatistics statistics() {
        long in = 0;
        for (Receiver r : receivers) {
            in += r.arrivedCount();
        }
        long out = 0;
        for (Transmitter t : transmitters) {
            out += t.publishedCount();
        }
        List<CodeletStatistics> cs = new ArrayList<>();
        for (Codelet c : codelets) {
            cs.add(new CodeletStatistics(name, c.name(), c.typeName(), c.stats.ticks, c.stats.totalNs, c.stats.maxNs,
                    c.stats.recent.snapshot()));
        }
        return new EntityStatistics(name, stats.ticks, stats.totalNs, stats.maxNs, in, out, List.copyOf(cs),
                stats.recent.snapshot());
    }

    @Override
    public String toString() {
        return "entity '" + name + "'";
    }
}

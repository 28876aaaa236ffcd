package io.jkompute.graph;

import java.util.Objects;

/**
 * Anything attached to an {@link Entity}: queues, scheduling terms, clocks, allocators, schedulers, codelets.
 * A component declares its parameters in {@link #registerInterface(Registrar)}; the graph sets them from YAML or
 * Java before {@link #initialize()}, and after activation non-dynamic parameters are frozen.
 */
public abstract class Component {
    /**
     * For subclasses; a component's parameters are declared in {@code registerInterface} and set when the graph loads.
     */
    protected Component() {
    }

    private Entity entity;
    private String name;
    private long cid;
    private String typeName;

    /** Declares this component's parameters. Called once, right after the component is created. */
    protected void registerInterface(Registrar registrar) {
    }

    /** Light setup once every parameter of every component of the graph is set and every handle resolved. */
    protected void initialize() {
    }

    /** Mirror of {@link #initialize()}; runs when the graph is closed. */
    protected void deinitialize() {
    }

    /** The entity holding this component. */
    public final Entity entity() {
        return entity;
    }

    /** The component's name inside its entity; generated ({@code _type_N}) when the YAML gave none. */
    public final String name() {
        return name;
    }

    /** Unique id of this component within its graph (GXF's cid). */
    public final long cid() {
        return cid;
    }

    /** Unique id of the entity holding this component (GXF's eid). */
    public final long eid() {
        return entity.eid();
    }

    /** The registered type name this component was created from (e.g. {@code DoubleBufferReceiver}). */
    public final String typeName() {
        return typeName;
    }

    /** The graph this component lives in. */
    public final Graph graph() {
        return entity.graph();
    }

    /** {@code entity/component}, the form handles are written in. */
    public final String path() {
        return entity.name() + "/" + name;
    }

    final void attach(Entity entity, String name, long cid, String typeName) {
        this.entity = Objects.requireNonNull(entity);
        this.name = Objects.requireNonNull(name);
        this.cid = cid;
        this.typeName = typeName;
    }

    @Override
    public String toString() {
        return typeName + " '" + (entity == null ? "?" : path()) + "'";
    }
}

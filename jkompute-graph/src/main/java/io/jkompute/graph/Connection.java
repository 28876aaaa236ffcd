package io.jkompute.graph;

/** Connects a transmitter to a receiver (GXF's Connection: parameters {@code source}, {@code target}). */
public final class Connection extends Component {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public Connection() {
    }

    private Parameter<Transmitter> source;
    private Parameter<Receiver> target;

    @Override
    protected void registerInterface(Registrar r) {
        source = r.handle("source", Transmitter.class, "the transmitter messages come from");
        target = r.handle("target", Receiver.class, "the receiver they go to");
    }

    @Override
    protected void initialize() {
        if (source.get().targetList().contains(target.get())) {
            throw new IllegalArgumentException("duplicate connection " + source.get().path() + " -> " + target.get().path());
        }
        source.get().addTarget(target.get());
        target.get().addSource(source.get());
    }

    /** The transmitter messages leave from. */
    public Transmitter source() {
        return source.get();
    }

    /** The receiver they arrive at. */
    public Receiver target() {
        return target.get();
    }
}

package io.jkompute.graph.std;

import io.jkompute.graph.Codelet;
import io.jkompute.graph.Message;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;

/**
 * GXF's sample {@code nvidia::gxf::PingRx}, registered as {@code PingRx}: each tick takes one message from
 * {@code signal}; a tick that finds none fails, as GXF's codelet returns GXF_CONTRACT_MESSAGE_NOT_AVAILABLE.
 */
public final class SamplePingRx extends Codelet {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public SamplePingRx() {
    }

    private Parameter<Receiver> signal;
    private long received;

    @Override
    protected void registerInterface(Registrar r) {
        signal = r.handle("signal", Receiver.class, "the receiver to take the messages from");
    }

    @Override
    protected void tick() {
        Message m = signal.get().receive();
        if (m == null) {
            throw new IllegalStateException("no message in '" + signal.get().path() + "' at tick " + executionCount());
        }
        received++;
    }

    /** Messages received so far. */
    public long received() {
        return received;
    }
}

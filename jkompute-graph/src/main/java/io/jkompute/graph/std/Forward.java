package io.jkompute.graph.std;

import io.jkompute.graph.Codelet;
import io.jkompute.graph.Message;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.Transmitter;

/** GXF's Forward: each tick moves one message from {@code in} to {@code out} (the same object, acqtime kept). */
public final class Forward extends Codelet {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public Forward() {
    }

    private Parameter<Receiver> in;
    private Parameter<Transmitter> out;

    @Override
    protected void registerInterface(Registrar r) {
        in = r.handle("in", Receiver.class, "the receiver to take from");
        out = r.handle("out", Transmitter.class, "the transmitter to publish on");
    }

    @Override
    protected void tick() {
        Message m = in.get().receive();
        if (m == null) {
            throw new IllegalStateException("no message in '" + in.get().path() + "' to forward");
        }
        out.get().publish(m);
    }
}

package io.jkompute.graph.std;

import io.jkompute.graph.Codelet;
import io.jkompute.graph.Message;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.Transmitter;
import java.util.List;

/**
 * GXF's Broadcast: each tick takes one message from {@code source} and publishes it on every transmitter of its
 * entity ({@code mode: Broadcast}, the same message object, no copy) or on the next one in declaration order
 * ({@code mode: RoundRobin}). An empty source fails the tick, as in GXF: schedule it on a MessageAvailable term.
 */
public final class Broadcast extends Codelet {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public Broadcast() {
    }

    private Parameter<Receiver> source;
    private Parameter<BroadcastMode> mode;
    private List<Transmitter> targets;
    private int next;

    @Override
    protected void registerInterface(Registrar r) {
        source = r.handle("source", Receiver.class, "the channel whose messages are distributed");
        mode = r.parameter("mode", ParameterTypes.enumeration(BroadcastMode.class),
                "Broadcast (to every transmitter) or RoundRobin (to one after the other)", BroadcastMode.Broadcast);
    }

    @Override
    protected void initialize() {
        targets = entity().components(Transmitter.class);
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("entity '" + entity().name() + "' has no transmitter to broadcast to");
        }
    }

    @Override
    protected void start() {
        next = 0;
    }

    @Override
    protected void tick() {
        Message m = source.get().receive();
        if (m == null) {
            throw new IllegalStateException("no message in '" + source.get().path() + "' to broadcast");
        }
        if (mode.get() == BroadcastMode.Broadcast) {
            for (Transmitter t : targets) {
                t.publish(m);
            }
        } else {
            targets.get(next).publish(m);
            next = (next + 1) % targets.size();
        }
    }
}

package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.Message;
import io.jkompute.graph.Transmitter;

/**
 * Publishes an empty message per tick on {@code transmitter} (codelet_params). The acqtime is 1, as in GXF's Python
 * PingTx, or the time of {@code clock} when that handle is given.
 */
public class PingTx extends CodeletAdapter {
    /**
     * Creates the codelet with its parameters at their defaults; a {@code JavaCodelet} instantiates it and sets them
     * from the app.
     */
    public PingTx() {
    }

    private Transmitter tx;
    private Clock clock;

    @Override
    public void start() {
        tx = transmitter(param("transmitter"));
        clock = params().containsKey("clock") ? component(param("clock"), Clock.class) : null;
    }

    @Override
    public void tick() {
        tx.publish(Message.create(), clock == null ? 1 : clock.timestamp());
    }
}

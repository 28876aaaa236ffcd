package io.jkompute.graph.std;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;

/** Receives one message per tick from {@code receiver} (codelet_params); an empty receive fails loudly. */
public class PingRx extends CodeletAdapter {
    /**
     * Creates the codelet with its parameters at their defaults; a {@code JavaCodelet} instantiates it and sets them
     * from the app.
     */
    public PingRx() {
    }

    private Receiver rx;
    private long received;

    @Override
    public void start() {
        rx = receiver(param("receiver"));
    }

    @Override
    public void tick() {
        Message m = rx.receive();
        if (m == null) {
            throw new IllegalStateException("Didn't get message: '" + rx.path() + "' was empty at tick "
                    + executionCount());
        }
        received++;
    }

    /** Messages received so far. */
    public long received() {
        return received;
    }
}

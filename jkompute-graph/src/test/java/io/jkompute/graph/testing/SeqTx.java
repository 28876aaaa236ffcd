package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.Message;
import io.jkompute.graph.Transmitter;

/** Publishes one message per tick whose acqtime is the tick number (1, 2, ...), or the clock time if asked. */
public class SeqTx extends CodeletAdapter {
    private Transmitter tx;
    private boolean clockTime;

    @Override
    public void start() {
        tx = transmitter(param("transmitter"));
        clockTime = "clock".equals(params().get("acqtime"));
    }

    @Override
    public void tick() {
        tx.publish(Message.create(), clockTime ? executionTimestamp() : executionCount());
    }
}

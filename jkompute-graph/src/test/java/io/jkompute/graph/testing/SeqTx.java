package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.Message;
import io.jkompute.graph.Transmitter;

/**
 * Publishes one message per tick whose acqtime is offset + step × the tick number (offset 0, step 1: 1, 2, ...), or
 * the clock time if asked.
 */
public class SeqTx extends CodeletAdapter {
    private Transmitter tx;
    private boolean clockTime;
    private long offset;
    private long step;

    @Override
    public void start() {
        tx = transmitter(param("transmitter"));
        clockTime = "clock".equals(params().get("acqtime"));
        offset = params().containsKey("offset") ? longParam("offset") : 0;
        step = params().containsKey("step") ? longParam("step") : 1;
    }

    @Override
    public void tick() {
        tx.publish(Message.create(), clockTime ? executionTimestamp() : offset + step * executionCount());
    }
}

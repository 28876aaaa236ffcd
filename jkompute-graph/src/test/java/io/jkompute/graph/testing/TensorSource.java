package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Transmitter;

/** Publishes per tick a message with a float32 tensor "values" = [n, n + 0.5, n + 1] (n = tick number), acqtime n. */
public class TensorSource extends CodeletAdapter {
    private Transmitter tx;

    @Override
    public void start() {
        tx = transmitter(param("transmitter"));
    }

    @Override
    public void tick() {
        long n = executionCount();
        Message m = Message.create().add("values", HostTensor.of(new float[] {n, n + 0.5f, n + 1}));
        tx.publish(m, n);
    }
}

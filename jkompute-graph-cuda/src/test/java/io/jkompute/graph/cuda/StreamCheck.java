package io.jkompute.graph.cuda;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;

/**
 * Test consumer: counts messages whose streams had not finished on arrival, and messages whose tensor, read without
 * waiting for its stream, held tick + i (frames numbered from 1).
 */
public class StreamCheck extends CodeletAdapter {
    private Receiver rx;
    volatile int messages;
    volatile int unfinished;
    volatile int correct;

    @Override
    public void start() {
        rx = receiver(param("receiver"));
    }

    @Override
    public void tick() {
        Message m = rx.receive();
        messages++;
        boolean done = true;
        for (CudaStreamId id : m.findAll(CudaStreamId.class)) {
            done &= id.stream().query();
        }
        if (!done) {
            unfinished++;
        }
        CudaDeviceTensor y = CudaDeviceTensor.of(m.get(GraphTensor.class, "tensor"));
        float[] v = y.array().toFloatArray(); // a plain copy: it does not wait for y's stream
        boolean ok = true;
        for (int i = 0; i < v.length; i++) {
            ok &= v[i] == messages + i;
        }
        if (ok) {
            correct++;
        }
        y.synchronize(); // now it is safe to let the block go back
    }
}

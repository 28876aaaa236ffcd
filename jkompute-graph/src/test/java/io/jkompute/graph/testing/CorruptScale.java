package io.jkompute.graph.testing;

import io.jkompute.DataType;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Transmitter;
import java.lang.foreign.ValueLayout;

/** The gpu-pipeline's CPU reference (y = 2x + 1), except that element 5 of frame {@code corrupt_frame} is off by 1. */
public class CorruptScale extends CodeletAdapter {
    private Receiver rx;
    private Transmitter tx;
    private Allocator pool;

    @Override
    public void start() {
        rx = receiver(param("receiver"));
        tx = transmitter(param("transmitter"));
        pool = allocator(param("allocator"));
    }

    @Override
    public void tick() {
        Message in = rx.receive();
        HostTensor x = in.get(HostTensor.class);
        HostTensor y = HostTensor.allocate(pool, DataType.FLOAT32, x.shape());
        for (long i = 0; i < x.elementCount(); i++) {
            float v = 2.0f * x.data().getAtIndex(ValueLayout.JAVA_FLOAT, i) + 1.0f;
            if (i == 5 && executionCount() == longParam("corrupt_frame")) {
                v += 1;
            }
            y.data().setAtIndex(ValueLayout.JAVA_FLOAT, i, v);
        }
        tx.publish(Message.create().add("host_tensor", y));
    }
}

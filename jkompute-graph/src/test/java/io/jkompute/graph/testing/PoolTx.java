package io.jkompute.graph.testing;

import io.jkompute.DataType;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;

/** Publishes a message holding a 16-float tensor from {@code allocator} per tick. */
public class PoolTx extends CodeletAdapter {
    @Override
    public void tick() {
        HostTensor t = HostTensor.allocate(allocator(param("allocator")), DataType.FLOAT32, 16);
        transmitter(param("transmitter")).publish(Message.create().add("tensor", t), executionCount());
    }
}

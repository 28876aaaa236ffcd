package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.StorageType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** Receives one message per tick and records the storage and float values of its "values" tensor. */
public class TensorSink extends CodeletAdapter {
    public final List<float[]> values = new ArrayList<>();
    public final List<StorageType> storages = new ArrayList<>();
    public final List<Long> acqtimes = new ArrayList<>();
    private Receiver rx;

    @Override
    public void start() {
        rx = receiver(param("receiver"));
    }

    @Override
    public void tick() {
        Message m = rx.receive();
        GraphTensor t = m.get(GraphTensor.class, "values");
        storages.add(t.storage());
        acqtimes.add(m.timestamp().acqtime());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = t.toHost(arena);
            values.add(host.asSlice(0, t.byteSize()).toArray(ValueLayout.JAVA_FLOAT));
        }
    }
}

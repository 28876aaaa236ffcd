package io.jkompute.net;

import io.jkompute.DataType;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Transmitter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Test codelet: publishes message n (1, 2, …) with an int64 tensor "seq" = [n] and, optionally, {@code bytes} of
 * payload; {@code burst: K} publishes K messages per tick (the transmitter's capacity must hold them).
 */
public class SeqTx extends CodeletAdapter {
    private Transmitter tx;
    private long n;
    private long payload;
    private boolean pattern;
    private boolean alternate;
    private long burst;

    @Override
    public void start() {
        tx = transmitter(param("transmitter"));
        payload = params().containsKey("bytes") ? longParam("bytes") : 0;
        pattern = params().containsKey("pattern") && Boolean.parseBoolean(param("pattern"));
        alternate = params().containsKey("alternate") && Boolean.parseBoolean(param("alternate"));
        burst = params().containsKey("burst") ? longParam("burst") : 1;
    }

    @Override
    public void tick() {
        for (long k = 0; k < burst; k++) {
            publishNext();
        }
    }

    private void publishNext() {
        n++;
        MemorySegment s = Arena.ofAuto().allocate(8, 8);
        s.set(ValueLayout.JAVA_LONG, 0, n);
        Message m = Message.create().add("seq", HostTensor.wrap(s, DataType.INT64, 1));
        long payload = alternate && n % 2 == 0 ? 1000 : this.payload; // every other message small
        if (payload > 0) {
            MemorySegment p = Arena.ofAuto().allocate(payload, 64);
            if (pattern) {
                SeqRx.fillPattern(p, n);
            }
            p.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, n);
            p.set(ValueLayout.JAVA_BYTE, payload - 1, (byte) n);
            m.add("payload", HostTensor.wrap(p, DataType.UINT8, payload));
        }
        tx.publish(m);
    }
}

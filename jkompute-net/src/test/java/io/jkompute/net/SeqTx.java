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
 * payload; {@code sizes} ("0,100,1300") gives the payload sizes in turn instead, and {@code per_tick} publishes that
 * many messages per tick.
 */
public class SeqTx extends CodeletAdapter {
    private Transmitter tx;
    private long n;
    private long payload;
    private boolean pattern;
    private boolean alternate;
    private long[] sizes;
    private int perTick = 1;

    @Override
    public void start() {
        tx = transmitter(param("transmitter"));
        payload = params().containsKey("bytes") ? longParam("bytes") : 0;
        pattern = params().containsKey("pattern") && Boolean.parseBoolean(param("pattern"));
        alternate = params().containsKey("alternate") && Boolean.parseBoolean(param("alternate"));
        if (params().containsKey("sizes")) {
            sizes = java.util.Arrays.stream(param("sizes").split(",")).mapToLong(x -> Long.parseLong(x.trim()))
                    .toArray();
        }
        perTick = params().containsKey("per_tick") ? (int) longParam("per_tick") : 1;
    }

    @Override
    public void tick() {
        for (int i = 0; i < perTick; i++) {
            publishNext();
        }
    }

    private void publishNext() {
        n++;
        MemorySegment s = Arena.ofAuto().allocate(8, 8);
        s.set(ValueLayout.JAVA_LONG, 0, n);
        Message m = Message.create().add("seq", HostTensor.wrap(s, DataType.INT64, 1));
        long payload = alternate && n % 2 == 0 ? 1000 : this.payload; // every other message small
        if (sizes != null) {
            payload = sizes[(int) ((n - 1) % sizes.length)];
        }
        if (payload > 0) {
            MemorySegment p = Arena.ofAuto().allocate(payload, 64);
            if (pattern) {
                for (long i = 0; i < payload; i++) {
                    p.set(ValueLayout.JAVA_BYTE, i, SeqRx.patternByte(i, n));
                }
            }
            p.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, n);
            p.set(ValueLayout.JAVA_BYTE, payload - 1, (byte) n);
            m.add("payload", HostTensor.wrap(p, DataType.UINT8, payload));
        }
        tx.publish(m);
    }
}

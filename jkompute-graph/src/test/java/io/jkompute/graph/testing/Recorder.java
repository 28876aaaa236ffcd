package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Receives per tick one message (or all, with drain: true) and records acqtimes, tick timestamps, the messages
 * themselves and how many were in the main stage when the tick began.
 */
public class Recorder extends CodeletAdapter {
    public final List<Long> acqtimes = Collections.synchronizedList(new ArrayList<>());
    public final List<Long> tickTimes = Collections.synchronizedList(new ArrayList<>());
    public final List<Integer> perTick = Collections.synchronizedList(new ArrayList<>());
    public final List<Integer> queuedAtTick = Collections.synchronizedList(new ArrayList<>());
    public final List<Message> messages = Collections.synchronizedList(new ArrayList<>());
    private Receiver rx;
    private boolean drain;
    private boolean receive;

    @Override
    public void start() {
        rx = receiver(param("receiver"));
        drain = Boolean.TRUE.equals(params().get("drain"));
        receive = !Boolean.FALSE.equals(params().get("receive"));
    }

    @Override
    public void tick() {
        tickTimes.add(executionTimestamp());
        queuedAtTick.add(rx.size());
        if (!receive) {
            perTick.add(0);
            return;
        }
        int n = 0;
        Message m;
        while ((m = rx.receive()) != null) {
            messages.add(m);
            acqtimes.add(m.timestamp().acqtime());
            n++;
            if (!drain) {
                break;
            }
        }
        perTick.add(n);
    }
}

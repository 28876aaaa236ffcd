package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.std.TargetTimeSchedulingTerm;
import java.util.ArrayList;
import java.util.List;

/** GXF's ScheduledPingTx without the message: each tick asks its term for a tick {@code delay} ns later. */
public class TargetTimer extends CodeletAdapter {
    public final List<Long> tickTimes = new ArrayList<>();

    @Override
    public void tick() {
        tickTimes.add(executionTimestamp());
        component(param("term"), TargetTimeSchedulingTerm.class)
                .setNextTargetTime(executionTimestamp() + longParam("delay"));
    }
}

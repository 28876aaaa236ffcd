package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;
import java.util.ArrayList;
import java.util.List;

/** Does nothing but record: start/stop calls, tick timestamps, and the timestamp stop() saw. */
public class Probe extends CodeletAdapter {
    public int starts;
    public int stops;
    public final List<Long> tickTimes = new ArrayList<>();
    public long stopTimestamp = -1;

    @Override
    public void start() {
        starts++;
    }

    @Override
    public void tick() {
        tickTimes.add(executionTimestamp());
    }

    @Override
    public void stop() {
        stops++;
        stopTimestamp = executionTimestamp();
    }
}

package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;

/** Fails in start() or at tick {@code fail_at} with message "boom at N"; counts its start/stop calls. */
public class Thrower extends CodeletAdapter {
    public int starts;
    public int stops;
    public long ticks;

    @Override
    public void start() {
        starts++;
        if ("start".equals(params().get("phase"))) {
            throw new IllegalStateException("boom in start");
        }
    }

    @Override
    public void tick() {
        ticks++;
        if (executionCount() == longParam("fail_at")) {
            throw new IllegalStateException("boom at " + executionCount());
        }
    }

    @Override
    public void stop() {
        stops++;
    }
}

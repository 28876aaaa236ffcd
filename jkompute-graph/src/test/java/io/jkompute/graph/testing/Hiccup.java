package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.std.ManualClock;
import java.util.ArrayList;
import java.util.List;

/** Simulates a slow tick: at tick {@code at_tick} it moves the manual clock forward by {@code advance_ns}. */
public class Hiccup extends CodeletAdapter {
    public final List<Long> tickTimes = new ArrayList<>();

    @Override
    public void tick() {
        tickTimes.add(executionTimestamp());
        if (executionCount() == longParam("at_tick")) {
            component(param("clock"), ManualClock.class).advance(longParam("advance_ns"));
        }
    }
}

package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.std.BooleanSchedulingTerm;

/** Disables its entity's BooleanSchedulingTerm at tick {@code after}. */
public class Disabler extends CodeletAdapter {
    @Override
    public void tick() {
        if (executionCount() == longParam("after")) {
            component(param("term"), BooleanSchedulingTerm.class).disableTick();
        }
    }
}

package io.jkompute.graph.std;

import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;

/** READY until the entity has ticked {@code count} times, then NEVER. */
public final class CountSchedulingTerm extends SchedulingTerm {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public CountSchedulingTerm() {
    }

    private Parameter<Long> count;
    private long remaining;
    private long lastRun;
    /** READY(lastRun), made once per execution rather than once per check. */
    private SchedulingCondition ready = SchedulingCondition.ready(0);

    @Override
    protected void registerInterface(Registrar r) {
        count = r.parameter("count", ParameterTypes.INT64, "how many times the entity may tick");
    }

    @Override
    protected void initialize() {
        remaining = count.get();
    }

    @Override
    public SchedulingCondition check(long now) {
        if (remaining <= 0) {
            return SchedulingCondition.NEVER;
        }
        SchedulingCondition c = ready;
        if (c.targetTimestamp() != lastRun) {
            c = SchedulingCondition.ready(lastRun);
            ready = c;
        }
        return c;
    }

    @Override
    public void onExecute(long now) {
        if (remaining > 0) {
            remaining--;
        }
        lastRun = now;
    }

    /** Ticks left. */
    public long remaining() {
        return remaining;
    }

    @Override
    public String describeState(long now) {
        return remaining > 0 ? "READY (" + remaining + " of " + count.get() + " left)" : "NEVER (count " + count.get() + " reached)";
    }
}

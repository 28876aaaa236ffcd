package io.jkompute.graph.std;

import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;

/** READY while {@code enable_tick} is true, NEVER once false (which stops the entity for good, as in GXF). */
public final class BooleanSchedulingTerm extends SchedulingTerm {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public BooleanSchedulingTerm() {
    }

    private Parameter<Boolean> enableTick;
    private volatile boolean enabled;

    @Override
    protected void registerInterface(Registrar r) {
        enableTick = r.parameter("enable_tick", ParameterTypes.BOOL, "whether the entity may tick", true);
    }

    @Override
    protected void initialize() {
        enabled = enableTick.get();
    }

    /** Lets the entity tick again (READY); safe from any thread. */
    public void enableTick() {
        set(true);
    }

    /** Stops the entity from ticking (NEVER): once the scheduler sees NEVER, the entity is done for good. */
    public void disableTick() {
        set(false);
    }

    /** Whether the entity may tick. */
    public boolean checkTickEnabled() {
        return enabled;
    }

    private void set(boolean v) {
        enabled = v;
        enableTick.set(v);
        notifyStateChanged();
    }

    @Override
    public SchedulingCondition check(long now) {
        return enabled ? readySince(now) : notReady(SchedulingCondition.NEVER);
    }
}

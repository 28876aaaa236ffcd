package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;

/**
 * Ticks at times the codelet asks for with {@link #setNextTargetTime(long)}. The first target is the clock's time
 * at initialization; each tick consumes the target, so the codelet must set the next one to run again.
 */
public final class TargetTimeSchedulingTerm extends SchedulingTerm {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public TargetTimeSchedulingTerm() {
    }

    private Parameter<Clock> clock;
    private volatile Long requested;
    private Long locked;
    private long lastTarget = Long.MIN_VALUE;

    @Override
    protected void registerInterface(Registrar r) {
        clock = r.handle("clock", Clock.class, "the clock targets are measured on");
    }

    @Override
    protected void initialize() {
        setNextTargetTime(clock.get().timestamp());
    }

    /** Asks for a tick at {@code target} ns; targets must not decrease. */
    public void setNextTargetTime(long target) {
        if (target < lastTarget) {
            throw new IllegalArgumentException("target time " + target + " ns is before the previous target "
                    + lastTarget + " ns; targets must not decrease");
        }
        lastTarget = target;
        requested = target;
        notifyStateChanged();
    }

    @Override
    public SchedulingCondition check(long now) {
        if (locked == null && requested != null) {
            locked = requested;
            requested = null;
        }
        if (locked == null) {
            return SchedulingCondition.WAIT;
        }
        return now >= locked ? SchedulingCondition.ready(locked) : SchedulingCondition.waitTime(locked);
    }

    @Override
    public void onExecute(long now) {
        locked = null;
    }

    @Override
    public String describeState(long now) {
        return locked == null && requested == null ? "WAIT (no next target time set)" : check(now).toString();
    }
}

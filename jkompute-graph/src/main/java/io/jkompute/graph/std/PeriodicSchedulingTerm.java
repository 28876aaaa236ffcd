package io.jkompute.graph.std;

import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;

/**
 * Ticks once per {@code recess_period} ("100ms", "10Hz", "0.2s" or ns). READY at once the first time; after a
 * tick at t the next target is t + period, then advanced by the {@code policy}.
 */
public final class PeriodicSchedulingTerm extends SchedulingTerm {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public PeriodicSchedulingTerm() {
    }

    private Parameter<Long> recessPeriod;
    private Parameter<PeriodicSchedulingPolicy> policy;
    private long period;
    private long nextTarget;
    private boolean hasTarget;

    @Override
    protected void registerInterface(Registrar r) {
        recessPeriod = r.parameter("recess_period", ParameterTypes.RECESS_PERIOD, "time between ticks");
        policy = r.parameter("policy", ParameterTypes.enumeration(PeriodicSchedulingPolicy.class),
                "catch-up policy", PeriodicSchedulingPolicy.CatchUpMissedTicks);
    }

    @Override
    protected void initialize() {
        period = recessPeriod.get();
    }

    @Override
    public SchedulingCondition check(long now) {
        if (!hasTarget) {
            return SchedulingCondition.ready(now);
        }
        return now > nextTarget ? SchedulingCondition.ready(nextTarget) : SchedulingCondition.waitTime(nextTarget);
    }

    @Override
    public void onExecute(long now) {
        if (!hasTarget) {
            nextTarget = now + period;
            hasTarget = true;
            return;
        }
        switch (policy.get()) {
            case CatchUpMissedTicks -> nextTarget += period;
            case MinTimeBetweenTicks -> nextTarget = now + period;
            case NoCatchUpMissedTicks -> {
                if (nextTarget <= now) {
                    nextTarget += ((now - nextTarget) / period + 1) * period;
                }
            }
        }
    }

    /** The period between ticks in nanoseconds, as read from {@code recess_period} at initialization. */
    public long recessPeriodNs() {
        return period;
    }

    /** The target of the last tick (next target − period); 0 before the first tick. */
    public long lastRunTimestamp() {
        return hasTarget ? nextTarget - period : 0;
    }
}

package io.jkompute.graph.std;

import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;

/**
 * Condition driven by an asynchronous job: READY (initial), WAIT, EVENT_WAITING → WAIT_EVENT, EVENT_DONE → READY
 * (and a notify), EVENT_NEVER → NEVER. Safe to set from any thread.
 */
public final class AsynchronousSchedulingTerm extends SchedulingTerm {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public AsynchronousSchedulingTerm() {
    }

    private volatile AsynchronousEventState state = AsynchronousEventState.READY;

    /** The state last set (READY at first). */
    public AsynchronousEventState eventState() {
        return state;
    }

    /** Sets the state and wakes the scheduler; safe from any thread. */
    public void setEventState(AsynchronousEventState s) {
        state = s;
        notifyStateChanged();
    }

    @Override
    public SchedulingCondition check(long now) {
        return switch (state) {
            case READY, EVENT_DONE -> readySince(now);
            case WAIT -> notReady(SchedulingCondition.WAIT);
            case EVENT_WAITING -> notReady(SchedulingCondition.WAIT_EVENT);
            case EVENT_NEVER -> notReady(SchedulingCondition.NEVER);
        };
    }

    @Override
    public String describeState(long now) {
        return check(now) + " (event state " + state + ")";
    }
}

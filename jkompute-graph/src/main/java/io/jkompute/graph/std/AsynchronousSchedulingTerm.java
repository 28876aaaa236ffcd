package io.jkompute.graph.std;

import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;

/**
 * Condition driven by an asynchronous job: READY (initial), WAIT, EVENT_WAITING → WAIT_EVENT, EVENT_DONE → READY
 * (and a notify), EVENT_NEVER → NEVER. Safe to set from any thread.
 */
public final class AsynchronousSchedulingTerm extends SchedulingTerm {
    private volatile AsynchronousEventState state = AsynchronousEventState.READY;

    public AsynchronousEventState eventState() {
        return state;
    }

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

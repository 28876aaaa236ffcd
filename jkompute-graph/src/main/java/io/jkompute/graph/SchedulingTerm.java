package io.jkompute.graph;

/**
 * Decides when its entity may execute. All terms of an entity are AND-combined
 * ({@link SchedulingCondition#and}); after every execution the runtime calls {@link #onExecute(long)}.
 */
public abstract class SchedulingTerm extends Component {
    /**
     * For subclasses; a component's parameters are declared in {@code registerInterface} and set when the graph loads.
     */
    protected SchedulingTerm() {
    }

    /** The condition at clock time {@code now} (nanoseconds). */
    public abstract SchedulingCondition check(long now);

    /** The READY returned while this term stays READY; null while it is not. */
    private SchedulingCondition readySince;

    /**
     * READY, stamped with the time this term last became READY (GXF's {@code last_state_change_}): one condition
     * per change of state rather than one per check, so a term that stays READY allocates nothing. Return
     * {@link #notReady} for every other answer, so the next READY is stamped anew.
     */
    protected final SchedulingCondition readySince(long now) {
        SchedulingCondition c = readySince;
        if (c == null) {
            c = SchedulingCondition.ready(now);
            readySince = c;
        }
        return c;
    }

    /** Returns {@code c} (WAIT, WAIT_TIME, WAIT_EVENT or NEVER) and forgets the READY stamp. */
    protected final SchedulingCondition notReady(SchedulingCondition c) {
        readySince = null;
        return c;
    }

    /** Called after each execution of the entity at clock time {@code now}. */
    public void onExecute(long now) {
    }

    /** Why this term is not READY, for deadlock reports ("0 of 1 messages in rx/in"). */
    public String describeState(long now) {
        return check(now).toString();
    }

    /** Terms this one combines itself (an OR combiner); the entity does not AND them separately. */
    protected java.util.Collection<SchedulingTerm> combinedTerms() {
        return java.util.List.of();
    }

    /** Tells the scheduler this term's state changed (event-based schedulers re-evaluate the entity). */
    protected final void notifyStateChanged() {
        if (entity() != null) {
            graph().notify(entity());
        }
    }
}

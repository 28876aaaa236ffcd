package io.jkompute.graph;

/**
 * Decides when its entity may execute. All terms of an entity are AND-combined
 * ({@link SchedulingCondition#and}); after every execution the runtime calls {@link #onExecute(long)}.
 */
public abstract class SchedulingTerm extends Component {
    /** The condition at clock time {@code now} (nanoseconds). */
    public abstract SchedulingCondition check(long now);

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

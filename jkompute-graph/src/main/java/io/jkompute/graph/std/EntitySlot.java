package io.jkompute.graph.std;

import io.jkompute.graph.Entity;
import io.jkompute.graph.SchedulingCondition;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One entity's scheduling state in a {@link WorkerPool}. Whoever wins {@link #claim()} (a worker, or the
 * dispatcher for a last look) is the only thread touching the entity's terms and codelets until {@link #release()}:
 * GXF runs an entity on one thread at a time, and a CAS is the cheapest way to say so without a lock.
 */
final class EntitySlot {
    static final int IDLE = 0;
    static final int CLAIMED = 1;
    static final int DONE = 2;

    final Entity entity;
    private final AtomicInteger state = new AtomicInteger(IDLE);
    /** An event named this entity since it was last evaluated (set by any thread, cleared by the claimer). */
    volatile boolean dirty = true;
    /** The condition of the last evaluation; written by the claimer, read by the dispatcher. */
    volatile SchedulingCondition last = SchedulingCondition.WAIT;
    /** The worker that runs this entity first ({@link WorkerPool}'s affinity); set before the workers start. */
    int home;

    EntitySlot(Entity entity) {
        this.entity = entity;
    }

    boolean claim() {
        return state.get() == IDLE && state.compareAndSet(IDLE, CLAIMED);
    }

    void release() {
        state.set(IDLE);
    }

    /** Called by the claimer instead of {@link #release()} once the entity returned NEVER: it is never claimed again. */
    void finish() {
        state.set(DONE);
    }

    boolean idle() {
        return state.get() == IDLE;
    }

    boolean done() {
        return state.get() == DONE;
    }

    /** Work a worker could pick up now: an event is pending and nobody holds the entity. */
    boolean claimable() {
        return dirty && state.get() == IDLE;
    }
}

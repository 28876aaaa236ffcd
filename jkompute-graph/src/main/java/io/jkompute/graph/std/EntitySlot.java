package io.jkompute.graph.std;

import io.jkompute.graph.Entity;
import io.jkompute.graph.SchedulingCondition;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One entity's scheduling state in a {@link WorkerPool}. Whoever wins {@link #claim()} (a worker, or the
 * dispatcher for a last look) is the only thread touching the entity's terms and codelets until {@link #release()}:
 * GXF runs an entity on one thread at a time, and a CAS is the cheapest way to say so without a lock.
 * <p>
 * Every tick writes the claim state twice, the dirty flag and the last condition. The slots were allocated one after
 * another, so two entities of different workers shared a cache line and each tick on one core invalidated the
 * other's: the hot fields sit between 64 bytes of padding on either side (superclass fields are laid out first), and
 * the claim state is a field here rather than an AtomicInteger object of its own.
 */
final class EntitySlot extends EntitySlotHot {
    static final int IDLE = 0;
    static final int CLAIMED = 1;
    static final int DONE = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(EntitySlotHot.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")
    private long q0, q1, q2, q3, q4, q5, q6, q7;

    EntitySlot(Entity entity) {
        super(entity);
    }

    boolean claim() {
        return state == IDLE && STATE.compareAndSet(this, IDLE, CLAIMED);
    }

    void release() {
        state = IDLE;
    }

    /** Called by the claimer instead of {@link #release()} once the entity returned NEVER: it is never claimed again. */
    void finish() {
        state = DONE;
    }

    boolean idle() {
        return state == IDLE;
    }

    boolean done() {
        return state == DONE;
    }

    /** Work a worker could pick up now: an event is pending and nobody holds the entity. */
    boolean claimable() {
        return dirty && state == IDLE;
    }
}

/** Padding before {@link EntitySlot}'s hot fields. */
abstract class EntitySlotPadding {
    @SuppressWarnings("unused")
    private long p0, p1, p2, p3, p4, p5, p6, p7;
}

/** The fields of an {@link EntitySlot} that every tick writes. */
abstract class EntitySlotHot extends EntitySlotPadding {
    volatile int state = EntitySlot.IDLE;
    /** An event named this entity since it was last evaluated (set by any thread, cleared by the claimer). */
    volatile boolean dirty = true;
    /** The condition of the last evaluation; written by the claimer, read by the dispatcher. */
    volatile SchedulingCondition last = SchedulingCondition.WAIT;
    /** The worker that runs this entity first ({@link WorkerPool}'s affinity); set before the workers start. */
    int home;
    final Entity entity;

    EntitySlotHot(Entity entity) {
        this.entity = entity;
    }
}

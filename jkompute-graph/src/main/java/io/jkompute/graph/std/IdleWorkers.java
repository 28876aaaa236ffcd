package io.jkompute.graph.std;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Parking and waking of a {@link WorkerPool}'s workers without a lock. A worker that found nothing spins (it is then
 * "searching"), and only after that parks. An event wakes one parked worker, and only when no worker is searching:
 * a searching worker will see the event itself, and an unpark costs a futex call on both sides.
 * <p>
 * No wake-up is lost because both sides write, then read, volatile fields in opposite order (Dekker): the event
 * sets its entity's dirty flag and then reads {@link #searching} / {@link #parked}; the worker raises those counts
 * and then looks at the dirty flags once more before it parks.
 */
final class IdleWorkers {
    private final Thread[] threads;
    private final AtomicBoolean[] parkedFlags;
    private final AtomicInteger searching = new AtomicInteger();
    private final AtomicInteger parked = new AtomicInteger();
    /** Unparked when every worker is parked: the dispatcher then decides about time, deadlock or the end. */
    private final Thread dispatcher;

    IdleWorkers(int workers, Thread dispatcher) {
        this.threads = new Thread[workers];
        this.parkedFlags = new AtomicBoolean[workers];
        for (int i = 0; i < workers; i++) {
            parkedFlags[i] = new AtomicBoolean();
        }
        this.dispatcher = dispatcher;
    }

    void register(int worker, Thread t) {
        threads[worker] = t;
    }

    void startSearching() {
        searching.incrementAndGet();
    }

    void stopSearching() {
        searching.decrementAndGet();
    }

    /** Whether every worker is parked (so none holds an entity or is about to pick one). */
    boolean allParked() {
        return parked.get() == threads.length;
    }

    /**
     * Work appeared (its dirty flag is already set): wake a parked worker unless one is searching already; the
     * entity's home worker if it is parked, so the work stays where its data is.
     */
    void workAvailable(int home) {
        if (parked.get() > 0 && searching.get() == 0) {
            if (home >= 0 && home < threads.length && parkedFlags[home].get()
                    && parkedFlags[home].compareAndSet(true, false)) {
                LockSupport.unpark(threads[home]);
                return;
            }
            wakeOne();
        }
    }

    /** Work appeared that belongs to no worker in particular. */
    void workAvailable() {
        workAvailable(-1);
    }

    /** Wakes one parked worker, if any. */
    void wakeOne() {
        for (int i = 0; i < threads.length; i++) {
            if (parkedFlags[i].get() && parkedFlags[i].compareAndSet(true, false)) {
                LockSupport.unpark(threads[i]);
                return;
            }
        }
    }

    void wakeAll() {
        for (int i = 0; i < threads.length; i++) {
            parkedFlags[i].set(false);
            if (threads[i] != null) {
                LockSupport.unpark(threads[i]);
            }
        }
    }

    /**
     * Parks worker {@code i} for at most {@code nanos} unless {@code recheck} says work (or a stop) came in the
     * meantime. The last worker to park unparks the dispatcher.
     */
    void park(int i, long nanos, java.util.function.BooleanSupplier recheck) {
        parkedFlags[i].set(true);
        if (parked.incrementAndGet() == threads.length) {
            LockSupport.unpark(dispatcher);
        }
        try {
            if (!recheck.getAsBoolean()) {
                LockSupport.parkNanos(this, nanos);
            }
        } finally {
            parkedFlags[i].set(false);
            parked.decrementAndGet();
        }
    }
}

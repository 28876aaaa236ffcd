package io.jkompute.graph;

import io.jkompute.graph.internal.BackoffIdle;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What a {@link Scheduler} uses to drive a run: the entities to schedule, the clock, GXF's executor
 * ({@link #execute}), events, interruption and failure reporting. Thread-safe, except that one entity must be
 * executed by one thread at a time.
 */
public final class ExecutionContext {
    private final Graph graph;
    private final Clock clock;
    private final List<Entity> entities;
    /**
     * Counts events. A LongAdder rather than an AtomicLong: every tick reports two or three events, and with
     * several workers one shared counter would be written from every core for every message; the adder gives
     * contending threads cells of their own. Only waiting compares its sum, which is exact once the writers are done.
     */
    private final LongAdder eventSequence = new LongAdder();
    // a Condition (parkNanos underneath) wakes within tens of µs; Object.wait rounds to whole milliseconds
    private final ReentrantLock eventLock = new ReentrantLock();
    private final Condition eventArrived = eventLock.newCondition();
    private volatile int eventWaiters;
    private volatile boolean interrupted;
    private volatile Consumer<Entity> listener;
    private volatile Throwable failure;

    ExecutionContext(Graph graph, Clock clock, List<Entity> entities) {
        this.graph = graph;
        this.clock = clock;
        this.entities = List.copyOf(entities);
    }

    /** Entities holding codelets, in declaration order (the greedy scheduler's visiting order). */
    public List<Entity> entities() {
        return entities;
    }

    /** The scheduler's clock. */
    public Clock clock() {
        return clock;
    }

    /** The graph this context executes. */
    public Graph graph() {
        return graph;
    }

    /** Whether {@link Graph#interrupt()} was called or a worker failed: schedulers stop as soon as they see it. */
    public boolean stopRequested() {
        return interrupted || failure != null;
    }

    /** True once {@code Graph.interrupt()} was called. */
    public boolean interrupted() {
        return interrupted;
    }

    /**
     * GXF's entity executor. First call: starts the codelets, returns READY. Later calls: combine the terms; if
     * READY (or WAIT_TIME whose target ≤ now) sync inbox, tick codelets in order, update terms, deliver outbox,
     * return READY; if NEVER stop the entity; otherwise return the condition. Throws
     * {@link GraphExecutionException} when a codelet or queue fails.
     */
    public SchedulingCondition execute(Entity e, long now) {
        if (e.stopped) {
            return SchedulingCondition.NEVER;
        }
        if (!e.started) {
            EntityExecutor.start(e, now);
            notifyEvent(e); // as after a tick: an event-driven scheduler evaluates only entities named by an event
            return SchedulingCondition.READY_NOW;
        }
        SchedulingCondition c = EntityExecutor.check(e, now);
        switch (c.type()) {
            case READY -> {
                EntityExecutor.tick(e, now, this);
                return c;
            }
            case WAIT_TIME -> {
                if (c.targetTimestamp() <= now) {
                    EntityExecutor.tick(e, now, this);
                    return SchedulingCondition.ready(c.targetTimestamp());
                }
                return c;
            }
            case NEVER -> {
                EntityExecutor.stop(e);
                return c;
            }
            default -> {
                return c;
            }
        }
    }

    /** The entity's combined condition without executing it (READY for an entity not yet started). */
    public SchedulingCondition check(Entity e, long now) {
        if (e.stopped) {
            return SchedulingCondition.NEVER;
        }
        if (!e.started) {
            return SchedulingCondition.READY_NOW;
        }
        SchedulingCondition c = EntityExecutor.check(e, now);
        if (c.type() == SchedulingConditionType.WAIT_TIME && c.targetTimestamp() <= now) {
            return SchedulingCondition.ready(c.targetTimestamp());
        }
        return c;
    }

    /**
     * Receives every event (message arrived, room freed, state changed, external notify) naming its entity, and null
     * for a stop request or a failure.
     */
    public void setEventListener(Consumer<Entity> l) {
        listener = l;
    }

    /** A counter bumped by every event; pass it to {@link #awaitEvent} to wait for the next one. */
    public long eventSequence() {
        return eventSequence.sum();
    }

    /**
     * Blocks until an event arrives after {@code seenSequence}, the timeout passes, or a stop is requested.
     * A negative timeout waits without limit. Returns whether an event arrived.
     */
    public boolean awaitEvent(long seenSequence, long timeoutNanos) throws InterruptedException {
        if (timeoutNanos != 0 && backOff(() -> eventSequence.sum() != seenSequence || stopRequested(),
                timeoutNanos < 0 ? Long.MAX_VALUE : timeoutNanos)) {
            return eventSequence.sum() != seenSequence;
        }
        eventLock.lock();
        try {
            eventWaiters++;
            long left = timeoutNanos;
            while (eventSequence.sum() == seenSequence && !stopRequested()) {
                if (timeoutNanos < 0) {
                    eventArrived.await();
                } else {
                    if (left <= 0) {
                        return false;
                    }
                    left = eventArrived.awaitNanos(left);
                }
            }
            return eventSequence.sum() != seenSequence;
        } finally {
            eventWaiters--;
            eventLock.unlock();
        }
    }

    /**
     * What a scheduler thread with nothing to run does before it parks, returning true as soon as {@code done} holds
     * (false if it still does not at the end). Without pollers: spins briefly, then yields ({@link BackoffIdle}).
     * With pollers ({@link Graph#addPoller}): the same back-off, calling them at every look, and then yields on for
     * the graph's poll spin after the last work they found (at most {@code maxNanos}), so a message arriving
     * meanwhile is taken in and ticked by this thread; an idle graph still parks once the spin is over.
     */
    public boolean backOff(BooleanSupplier done, long maxNanos) {
        Poller[] ps = graph.pollers();
        if (ps.length == 0) {
            return BackoffIdle.await(done);
        }
        return BackoffIdle.await(done, () -> {
            int work = 0;
            for (Poller p : ps) {
                work += p.poll();
            }
            return work;
        }, Math.min(graph.pollSpinNs(), maxNanos));
    }

    /**
     * Waits until clock time {@code target}: a manual clock jumps there at once; a real clock is waited on, but an
     * event after {@code seenSequence} (or a stop request) ends the wait early.
     */
    public void awaitTime(long seenSequence, long target) throws InterruptedException {
        if (clock.isManual()) {
            if (target > clock.timestamp()) {
                clock.sleepUntil(target);
            }
        } else {
            awaitEvent(seenSequence, clock.wallNanosUntil(target));
        }
    }

    /** Reports an event for an entity (the runtime and terms call this through {@link Graph#notify}). */
    void notifyEvent(Entity e) {
        eventSequence.increment();
        Consumer<Entity> l = listener;
        if (l != null) {
            l.accept(e);
        }
        if (eventWaiters > 0) {
            eventLock.lock();
            try {
                eventArrived.signalAll();
            } finally {
                eventLock.unlock();
            }
        }
    }

    void interrupt() {
        interrupted = true;
        notifyEvent(null);
    }

    /** Records a failure from a worker thread; the first one wins and stops the run. */
    public void fail(Throwable t) {
        synchronized (this) {
            if (failure == null) {
                failure = t;
            }
        }
        notifyEvent(null);
    }

    /** The first failure that stopped the run, or null. */
    public Throwable failure() {
        return failure;
    }

    /** "rx: MessageAvailableSchedulingTerm 'avail' WAIT: 0 of min_size 1 messages in rx/in" per waiting entity. */
    /**
     * Whether the work of a run that stopped with {@code waiting} entities left is done, as a GXF app's is when its
     * receivers are left waiting: some entity finished (its terms said NEVER), and every entity left is fed by
     * receivers that are all empty, so no message is left to process and no source is left to produce one. A source
     * (an entity without receivers) still waiting, or any message still queued, is work left undone: a deadlock.
     */
    public boolean workDone(Collection<Entity> waiting) {
        boolean someFinished = false;
        for (Entity e : entities) {
            if (e.stopped) {
                someFinished = true;
                break;
            }
        }
        if (!someFinished) {
            return false;
        }
        for (Entity e : waiting) {
            if (e.stopped) {
                continue;
            }
            if (e.receiverArray.length == 0) {
                return false;
            }
            for (Receiver r : e.receiverArray) {
                if (r.size() + r.backSize() > 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /** One line per entity of {@code waiting}: what each waits for at time {@code now}, for deadlock reports. */
    public String describeWaiting(Collection<Entity> waiting, long now) {
        List<String> lines = new ArrayList<>();
        for (Entity e : waiting) {
            if (e.stopped) {
                continue;
            }
            List<String> why = new ArrayList<>();
            for (SchedulingTerm t : e.terms) {
                SchedulingCondition c = t.check(now);
                if (c.type() != SchedulingConditionType.READY) {
                    why.add(t.typeName() + " '" + t.name() + "' " + t.describeState(now));
                }
            }
            lines.add(e.name() + " waits for: " + (why.isEmpty() ? "(nothing; terms are READY)" : String.join("; ", why)));
        }
        return String.join("\n", lines);
    }
}

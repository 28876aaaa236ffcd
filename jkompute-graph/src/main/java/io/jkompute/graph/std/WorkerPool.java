package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.Entity;
import io.jkompute.graph.ExecutionContext;
import io.jkompute.graph.Scheduler.StopReport;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingConditionType;
import io.jkompute.graph.StopReason;
import io.jkompute.graph.internal.BackoffIdle;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A dispatcher (the scheduler's thread) that checks idle entities and hands READY ones to worker threads; an
 * entity is only ever on one thread at a time. Polling mode (MultiThreadScheduler) re-checks every idle entity after
 * any event or every recession period; event mode (EventBasedScheduler) re-checks an entity only when an event
 * names it (message arrived, room freed, state changed, external notify, memory freed) or its target time came.
 */
final class WorkerPool {
    private static final Entity STOP = null;

    /** Per-entity scheduling state; {@code running} hands the entity between dispatcher and a worker. */
    private static final class Slot {
        final Entity entity;
        final AtomicBoolean queued = new AtomicBoolean();
        volatile boolean running;
        volatile boolean done;
        SchedulingCondition last = SchedulingCondition.WAIT;

        Slot(Entity entity) {
            this.entity = entity;
        }
    }

    private record Timer(long target, Slot slot) {
    }

    private final ExecutionContext ctx;
    private final Clock clock;
    private final int workers;
    private final boolean eventDriven;
    private final long pollNs;
    private final SchedulerParameters common;
    private final List<Slot> slots = new ArrayList<>();
    private final Map<Entity, Slot> byEntity = new IdentityHashMap<>();
    private final LinkedBlockingQueue<Slot> work = new LinkedBlockingQueue<>();
    private final ConcurrentLinkedQueue<Slot> toCheck = new ConcurrentLinkedQueue<>();
    private final AtomicInteger running = new AtomicInteger();

    WorkerPool(ExecutionContext ctx, Clock clock, int workers, boolean eventDriven, long pollNs,
               SchedulerParameters common) {
        this.ctx = ctx;
        this.clock = clock;
        this.workers = workers;
        this.eventDriven = eventDriven;
        this.pollNs = pollNs;
        this.common = common;
        for (Entity e : ctx.entities()) {
            Slot s = new Slot(e);
            slots.add(s);
            byEntity.put(e, s);
        }
    }

    StopReport run() throws InterruptedException {
        if (eventDriven) {
            ctx.setEventListener(this::onEvent);
        }
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            Thread t = new Thread(this::workerLoop, "jkompute-graph-worker-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        try {
            return dispatch();
        } finally {
            ctx.setEventListener(null);
            // let running entities finish their tick before the graph stops codelets
            for (int i = 0; i < threads.size(); i++) {
                work.add(new Slot(STOP));
            }
            for (Thread t : threads) {
                t.join();
            }
        }
    }

    private void onEvent(Entity e) {
        Slot s = byEntity.get(e);
        if (s != null && !s.done && s.queued.compareAndSet(false, true)) {
            toCheck.add(s);
        }
    }

    private void workerLoop() {
        while (true) {
            Slot s = work.poll();
            if (s == null) {
                BackoffIdle.await(() -> !work.isEmpty());
                try {
                    s = work.take();
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (s.entity == STOP) {
                return;
            }
            try {
                if (!ctx.stopRequested()) {
                    SchedulingCondition c = ctx.execute(s.entity, clock.timestamp());
                    s.last = c;
                    if (c.type() == SchedulingConditionType.NEVER) {
                        s.done = true;
                    }
                }
            } catch (Throwable t) {
                ctx.fail(t);
            } finally {
                // queue the re-check before dropping the running count: the dispatcher reads them in the
                // opposite order, so it never sees "nothing running, nothing to check" while this entity is pending
                s.running = false;
                s.queued.set(true);
                toCheck.add(s);
                running.decrementAndGet();
                ctx.graph().notify(s.entity);
            }
        }
    }

    private StopReport dispatch() throws InterruptedException {
        long deadline = common.deadline(clock.timestamp());
        DeadlockWatch watch = common.deadlockWatch();
        PriorityQueue<Timer> timers = new PriorityQueue<>((a, b) -> Long.compare(a.target, b.target));
        for (Slot s : slots) {
            s.queued.set(true);
            toCheck.add(s);
        }
        while (true) {
            if (ctx.stopRequested()) {
                return new StopReport(StopReason.INTERRUPTED, "interrupted");
            }
            long now = clock.timestamp();
            if (now > deadline) {
                return new StopReport(StopReason.MAX_DURATION, "max_duration_ms " + common.maxDurationMs.get() + " reached");
            }
            long seq = ctx.eventSequence();
            int submitted = 0;
            if (eventDriven) {
                while (!timers.isEmpty() && timers.peek().target <= now) {
                    onEvent(timers.poll().slot.entity);
                }
                Slot s;
                while ((s = toCheck.poll()) != null) {
                    s.queued.set(false);
                    if (!s.running && !s.done) {
                        submitted += evaluate(s, now, timers);
                    }
                }
            } else {
                toCheck.clear();
                for (Slot s : slots) {
                    s.queued.set(false);
                    if (!s.running && !s.done) {
                        submitted += evaluate(s, now, null);
                    }
                }
            }
            if (submitted > 0) {
                watch.progress();
                continue;
            }
            boolean anyLeft = false;
            boolean waitEvent = false;
            long earliest = eventDriven && !timers.isEmpty() ? timers.peek().target : Long.MAX_VALUE;
            for (Slot s : slots) {
                if (s.done) {
                    continue;
                }
                anyLeft = true;
                if (!s.running) {
                    SchedulingConditionType t = s.last.type();
                    waitEvent |= t == SchedulingConditionType.WAIT_EVENT;
                    if (!eventDriven && t == SchedulingConditionType.WAIT_TIME) {
                        earliest = Math.min(earliest, s.last.targetTimestamp());
                    }
                }
            }
            if (!anyLeft) {
                return new StopReport(StopReason.COMPLETED, "all entities are done");
            }
            if (running.get() > 0 || !toCheck.isEmpty()) {
                watch.progress();
                long wait = eventDriven ? (earliest == Long.MAX_VALUE ? SchedulerParameters.waitCap(clock, deadline)
                        : clock.wallNanosUntil(earliest)) : pollNs;
                if (!clock.isManual() && !eventDriven && earliest != Long.MAX_VALUE) {
                    wait = Math.min(wait, clock.wallNanosUntil(earliest));
                }
                if (clock.isManual() && wait == 0) {
                    wait = -1; // manual time moves only when everything is idle
                }
                if (running.get() > 0 && toCheck.isEmpty()) {
                    ctx.awaitEvent(seq, wait);
                }
                continue;
            }
            if (earliest != Long.MAX_VALUE) {
                watch.progress();
                ctx.awaitTime(seq, earliest);
                continue;
            }
            if (waitEvent) {
                watch.progress();
                ctx.awaitEvent(seq, eventDriven ? SchedulerParameters.waitCap(clock, deadline) : pollNs);
                continue;
            }
            if (anyIdleEntityCanRun(seq)) {
                continue;
            }
            if (watch.stuck()) {
                List<Entity> waiting = new ArrayList<>();
                for (Slot s : slots) {
                    if (!s.done) {
                        waiting.add(s.entity);
                    }
                }
                return new StopReport(StopReason.DEADLOCK, DeadlockWatch.MESSAGE + ":\n"
                        + ctx.describeWaiting(waiting, clock.timestamp()));
            }
            ctx.awaitEvent(seq, pollNs > 0 ? pollNs : 1_000_000);
        }
    }

    /** A last, fresh look before calling it a deadlock: an event since {@code seq} or any entity READY now. */
    private boolean anyIdleEntityCanRun(long seq) {
        if (ctx.eventSequence() != seq || running.get() > 0 || !toCheck.isEmpty()) {
            return true;
        }
        long now = clock.timestamp();
        for (Slot s : slots) {
            if (!s.done && !s.running) {
                SchedulingConditionType t = ctx.check(s.entity, now).type();
                if (t != SchedulingConditionType.WAIT) {
                    onEvent(s.entity);
                    return true;
                }
            }
        }
        return false;
    }

    /** Checks an idle entity; submits it when READY (or NEVER, so a worker stops it). Returns 1 if submitted. */
    private int evaluate(Slot s, long now, PriorityQueue<Timer> timers) {
        SchedulingCondition c;
        try {
            c = ctx.check(s.entity, now);
        } catch (RuntimeException e) {
            ctx.fail(e);
            return 0;
        }
        s.last = c;
        switch (c.type()) {
            case READY, NEVER -> {
                s.running = true;
                running.incrementAndGet();
                work.add(s);
                return 1;
            }
            case WAIT_TIME -> {
                if (timers != null) {
                    timers.add(new Timer(c.targetTimestamp(), s));
                }
                return 0;
            }
            default -> {
                return 0;
            }
        }
    }
}

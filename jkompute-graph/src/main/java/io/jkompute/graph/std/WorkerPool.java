package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.Entity;
import io.jkompute.graph.ExecutionContext;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Scheduler.StopReport;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingConditionType;
import io.jkompute.graph.StopReason;
import io.jkompute.graph.Transmitter;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The workers of the MultiThread and EventBased schedulers. Workers pick entities and run them themselves: a tick
 * never waits for a hand-off from another thread, and an entity is claimed with a CAS ({@link EntitySlot}) so it runs
 * on one worker at a time. Events (message arrived, room freed, a term's state changed, an external notify) mark
 * their entity dirty and wake a parked worker ({@link IdleWorkers}) only when no worker is already looking.
 * <p>
 * Polling mode (MultiThreadScheduler) evaluates every idle entity on each pass and, when none ran, waits for any
 * event or {@code check_recession_period_ms}; event mode (EventBasedScheduler) evaluates an entity only when an event
 * named it. The scheduler's own thread is the dispatcher and stays off the fast path: it wakes for target times
 * (WAIT_TIME), the deadline, a stop, and when every worker is parked, to decide between a manual-clock jump,
 * waiting for an event, a deadlock and the end.
 */
final class WorkerPool {
    /** Longest a worker or the dispatcher parks before looking again: a safety net, never the mechanism. */
    private static final long PARK_CAP_NS = 50_000_000;

    private final ExecutionContext ctx;
    private final Clock clock;
    private final int workers;
    private final boolean eventDriven;
    private final long pollNs;
    private final SchedulerParameters common;
    private final EntitySlot[] slots;
    /** Per worker, its home entities in declaration order, then every other entity (the ones it may take). */
    private final EntitySlot[][] home;
    private final EntitySlot[][] others;
    private final Map<Entity, EntitySlot> byEntity = new IdentityHashMap<>();
    private final AtomicInteger remaining;
    private final Thread dispatcher = Thread.currentThread();
    private final IdleWorkers idle;
    private volatile boolean stopping;
    /** The clock time the dispatcher parks until; a worker that sets an earlier WAIT_TIME unparks it. */
    private volatile long dispatcherWakeAt = Long.MAX_VALUE;

    WorkerPool(ExecutionContext ctx, Clock clock, int workers, boolean eventDriven, long pollNs,
               SchedulerParameters common) {
        this.ctx = ctx;
        this.clock = clock;
        this.workers = workers;
        this.eventDriven = eventDriven;
        this.pollNs = pollNs;
        this.common = common;
        List<Entity> entities = ctx.entities();
        slots = new EntitySlot[entities.size()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new EntitySlot(entities.get(i));
            byEntity.put(entities.get(i), slots[i]);
        }
        remaining = new AtomicInteger(slots.length);
        idle = new IdleWorkers(workers, dispatcher);
        int[] owner = homes(entities, workers);
        home = new EntitySlot[workers][];
        others = new EntitySlot[workers][];
        for (int w = 0; w < workers; w++) {
            List<EntitySlot> mine = new ArrayList<>();
            List<EntitySlot> rest = new ArrayList<>();
            for (int i = 0; i < slots.length; i++) {
                if (owner[i] == w) {
                    mine.add(slots[i]);
                }
            }
            // others start after this worker's share, so several idle workers do not all try the same entity first
            int start = slots.length == 0 ? 0 : w * slots.length / workers;
            for (int k = 0; k < slots.length; k++) {
                int i = (start + k) % slots.length;
                if (owner[i] != w) {
                    rest.add(slots[i]);
                }
            }
            home[w] = mine.toArray(new EntitySlot[0]);
            others[w] = rest.toArray(new EntitySlot[0]);
        }
        for (int i = 0; i < slots.length; i++) {
            slots[i].home = owner[i];
        }
    }

    /**
     * The home worker of each entity: union-find over transmitter → receiver connections gives the connected
     * components; the largest go first, each to the worker with the fewest entities so far (ties: the lower index).
     */
    static int[] homes(List<Entity> entities, int workers) {
        int n = entities.size();
        Map<Entity, Integer> index = new IdentityHashMap<>();
        for (int i = 0; i < n; i++) {
            index.put(entities.get(i), i);
        }
        int[] parent = new int[n];
        for (int i = 0; i < n; i++) {
            parent[i] = i;
        }
        for (int i = 0; i < n; i++) {
            for (Transmitter t : entities.get(i).components(Transmitter.class)) {
                for (Receiver r : t.targets()) {
                    Integer j = index.get(r.entity());
                    if (j != null) {
                        int a = root(parent, i), b = root(parent, j);
                        parent[Math.max(a, b)] = Math.min(a, b);
                    }
                }
            }
        }
        int[] size = new int[n];
        for (int i = 0; i < n; i++) {
            size[root(parent, i)]++;
        }
        List<Integer> roots = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (parent[i] == i) {
                roots.add(i);
            }
        }
        // stable: equal sizes keep declaration order
        roots.sort((a, b) -> Integer.compare(size[b], size[a]));
        int[] load = new int[workers];
        int[] workerOfRoot = new int[n];
        for (int r : roots) {
            int best = 0;
            for (int w = 1; w < workers; w++) {
                if (load[w] < load[best]) {
                    best = w;
                }
            }
            workerOfRoot[r] = best;
            load[best] += size[r];
        }
        int[] owner = new int[n];
        for (int i = 0; i < n; i++) {
            owner[i] = workerOfRoot[root(parent, i)];
        }
        return owner;
    }

    private static int root(int[] parent, int i) {
        while (parent[i] != i) {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        return i;
    }

    StopReport run() throws InterruptedException {
        ctx.setEventListener(this::onEvent);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            int index = i;
            Thread t = new Thread(() -> workerLoop(index), "jkompute-graph-worker-" + i);
            t.setDaemon(true);
            idle.register(i, t);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        try {
            return dispatch();
        } finally {
            // every stop path comes through here: workers finish the tick they are in, then leave
            stopping = true;
            ctx.setEventListener(null);
            idle.wakeAll();
            for (Thread t : threads) {
                t.join();
            }
        }
    }

    /** Runs on whichever thread reports the event; null stands for a stop request or failure. */
    private void onEvent(Entity e) {
        if (e == null) {
            if (ctx.stopRequested()) {
                idle.wakeAll();
                LockSupport.unpark(dispatcher);
            }
            return;
        }
        EntitySlot s = byEntity.get(e);
        if (s == null) {
            return;
        }
        if (!s.dirty) {
            s.dirty = true; // skipped when set already: a claimer clears it before it evaluates, so nothing is lost
        }
        idle.workAvailable(s.home);
    }

    private boolean workPending() {
        if (stopping || ctx.stopRequested()) {
            return true;
        }
        for (EntitySlot s : slots) {
            if (s.claimable()) {
                return true;
            }
        }
        return false;
    }

    private void workerLoop(int index) {
        EntitySlot[] mine = home[index];
        EntitySlot[] rest = others[index];
        long parkNs = eventDriven ? PARK_CAP_NS : Math.min(pollNs, PARK_CAP_NS);
        while (!stopping && !ctx.stopRequested()) {
            boolean ran = false;
            // home entities in declaration order: an upstream tick can be followed by its downstream tick at once
            for (EntitySlot s : mine) {
                if ((!eventDriven || s.dirty) && s.claim()) {
                    ran |= execute(s);
                    if (stopping || ctx.stopRequested()) {
                        return;
                    }
                }
            }
            if (ran) {
                continue;
            }
            // none of its own ran: help the other workers, one entity at a time, then look at home again
            for (EntitySlot s : rest) {
                if ((!eventDriven || s.dirty) && s.claim()) {
                    ran = execute(s);
                    if (stopping || ctx.stopRequested()) {
                        return;
                    }
                    if (ran) {
                        break;
                    }
                }
            }
            if (ran) {
                continue;
            }
            idle.startSearching();
            boolean found;
            try {
                found = ctx.backOff(this::workPending, parkNs);
            } finally {
                idle.stopSearching();
            }
            if (!found) {
                idle.park(index, parkNs, this::workPending);
            }
        }
    }

    /** Executes a claimed entity and releases it; returns whether it ticked (or started). */
    private boolean execute(EntitySlot s) {
        s.dirty = false; // before evaluating: an event during the evaluation sets it again
        SchedulingCondition c;
        try {
            c = ctx.execute(s.entity, clock.timestamp());
        } catch (Throwable t) {
            s.release();
            ctx.fail(t);
            return false;
        }
        s.last = c;
        switch (c.type()) {
            case READY -> {
                s.release();
                return true;
            }
            case NEVER -> {
                s.finish();
                if (remaining.decrementAndGet() == 0) {
                    LockSupport.unpark(dispatcher);
                }
                return false;
            }
            case WAIT_TIME -> {
                s.release();
                if (c.targetTimestamp() < dispatcherWakeAt) {
                    LockSupport.unpark(dispatcher);
                }
                return false;
            }
            default -> {
                s.release();
                return false;
            }
        }
    }

    private StopReport dispatch() {
        long deadline = common.deadline(clock.timestamp());
        DeadlockWatch watch = common.deadlockWatch();
        long progressSeen = -1;
        while (true) {
            if (ctx.stopRequested()) {
                return new StopReport(StopReason.INTERRUPTED, "interrupted");
            }
            long progress = progressMark();
            if (progress != progressSeen) {
                progressSeen = progress;
                watch.progress();
            }
            long now = clock.timestamp();
            if (now > deadline) {
                return new StopReport(StopReason.MAX_DURATION, "max_duration_ms " + common.maxDurationMs.get() + " reached");
            }
            if (remaining.get() == 0) {
                return new StopReport(StopReason.COMPLETED, "all entities are done");
            }
            dispatcherWakeAt = Long.MAX_VALUE; // from here on a worker setting any target time unparks us
            long earliest = dueTimers(now);
            long parkNs = PARK_CAP_NS;
            if (idle.allParked() && !workPending()) {
                LastLook look = lastLook(now);
                if (look == null) {
                    continue; // an entity turned out runnable: its tick, when it comes, counts as progress
                }
                if (remaining.get() == 0) {
                    return new StopReport(StopReason.COMPLETED, "all entities are done");
                }
                earliest = Math.min(earliest, look.earliest);
                if (earliest != Long.MAX_VALUE) {
                    watch.progress();
                    if (clock.isManual()) {
                        // manual time moves only when everything is idle, straight to the next target
                        try {
                            clock.sleepUntil(earliest);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return new StopReport(StopReason.INTERRUPTED, "interrupted");
                        }
                        continue;
                    }
                } else if (look.waitEvent) {
                    watch.progress();
                } else if (watch.stuck()) {
                    List<Entity> waiting = new ArrayList<>();
                    for (EntitySlot s : slots) {
                        if (!s.done()) {
                            waiting.add(s.entity);
                        }
                    }
                    return new StopReport(StopReason.DEADLOCK, DeadlockWatch.MESSAGE + ":\n"
                            + ctx.describeWaiting(waiting, clock.timestamp()));
                } else {
                    // waiting out stop_on_deadlock_timeout, or told never to stop on one: look again soon
                    parkNs = pollNs > 0 ? Math.min(pollNs, 1_000_000) : 1_000_000;
                }
            }
            // a worker awake is no progress by itself: polling workers (MultiThreadScheduler) wake every
            // check_recession_period_ms and find nothing, and on a loaded machine one is nearly always awake
            if (!clock.isManual()) {
                if (earliest != Long.MAX_VALUE) {
                    parkNs = Math.min(parkNs, clock.wallNanosUntil(earliest));
                }
                if (deadline != Long.MAX_VALUE) {
                    parkNs = Math.min(parkNs, clock.wallNanosUntil(deadline) + 1);
                }
            }
            dispatcherWakeAt = earliest;
            if (parkNs > 0) {
                LockSupport.parkNanos(this, parkNs);
            }
        }
    }

    /** Grows with every tick and every entity that finished: unchanged between two looks means nothing ran. */
    private long progressMark() {
        long mark = slots.length - remaining.get();
        for (EntitySlot s : slots) {
            mark += s.entity.tickCount();
        }
        return mark;
    }

    /** Marks idle entities whose target time came as dirty; returns the earliest target still ahead. */
    private long dueTimers(long now) {
        long earliest = Long.MAX_VALUE;
        boolean due = false;
        for (EntitySlot s : slots) {
            SchedulingCondition c = s.last;
            if (c.type() == SchedulingConditionType.WAIT_TIME && s.idle() && !s.dirty) {
                if (c.targetTimestamp() <= now) {
                    s.dirty = true;
                    due = true;
                } else {
                    earliest = Math.min(earliest, c.targetTimestamp());
                }
            }
        }
        if (due) {
            idle.workAvailable();
        }
        return earliest;
    }

    /** What a fresh check of every idle entity found, once all workers were parked. */
    private record LastLook(long earliest, boolean waitEvent) {
    }

    /**
     * Every worker is parked: checks each remaining entity afresh (claiming it, so no worker runs it meanwhile).
     * Returns null when something can run after all (it is marked dirty and a worker woken) or a worker got there
     * first.
     */
    private LastLook lastLook(long now) {
        long earliest = Long.MAX_VALUE;
        boolean waitEvent = false;
        boolean runnable = false;
        for (EntitySlot s : slots) {
            if (s.done()) {
                continue;
            }
            if (!s.claim()) {
                runnable = true; // a worker holds it: not idle after all
                continue;
            }
            SchedulingCondition c;
            try {
                c = ctx.check(s.entity, now);
            } catch (RuntimeException e) {
                s.release();
                ctx.fail(e);
                return null;
            }
            s.last = c;
            switch (c.type()) {
                case READY, NEVER -> {
                    s.dirty = true; // a worker executes it (NEVER: stops it)
                    runnable = true;
                }
                case WAIT_TIME -> earliest = Math.min(earliest, c.targetTimestamp());
                case WAIT_EVENT -> waitEvent = true;
                case WAIT -> { }
            }
            s.release();
        }
        if (runnable || workPending()) {
            idle.workAvailable();
            return null;
        }
        return new LastLook(earliest, waitEvent);
    }
}

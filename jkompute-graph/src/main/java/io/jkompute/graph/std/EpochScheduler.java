package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.Entity;
import io.jkompute.graph.ExecutionContext;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.StopReason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * GXF's EpochScheduler: no thread of its own; the caller drives the graph with {@link #runEpoch(double)} after
 * {@link io.jkompute.graph.Graph#runAsync()}. A budget ≤ 0 executes every active entity once; a positive budget (ms
 * of the scheduler's clock) keeps making passes until it is used up or a pass found nothing READY (a pass started
 * inside the budget is finished). Entities that say NEVER leave the schedule; when none is left the run completes.
 * End it earlier with {@link io.jkompute.graph.Graph#interrupt()}. Parameter: {@code clock}.
 */
public final class EpochScheduler extends io.jkompute.graph.Scheduler {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public EpochScheduler() {
    }

    private Parameter<Clock> clock;
    private final ReentrantLock epoch = new ReentrantLock();
    private final List<Entity> active = new ArrayList<>();
    private volatile ExecutionContext context;
    private volatile boolean ended;

    @Override
    protected void registerInterface(Registrar r) {
        clock = r.handle("clock", Clock.class, "the clock the epoch budget is measured on");
    }

    @Override
    public Clock clock() {
        return clock.get();
    }

    @Override
    protected void runStarting(ExecutionContext ctx) {
        epoch.lock();
        try {
            active.addAll(ctx.entities());
            context = ctx;
        } finally {
            epoch.unlock();
        }
    }

    @Override
    protected StopReport schedule(ExecutionContext ctx) throws InterruptedException {
        try {
            while (!ctx.stopRequested() && !allDone()) {
                ctx.awaitEvent(ctx.eventSequence(), TimeUnit.MILLISECONDS.toNanos(10));
            }
        } finally {
            // waits for a running epoch so stop() never overlaps a tick
            epoch.lock();
            try {
                ended = true;
            } finally {
                epoch.unlock();
            }
        }
        if (ctx.interrupted()) {
            return new StopReport(StopReason.INTERRUPTED, "interrupted");
        }
        return ctx.failure() != null ? new StopReport(StopReason.ERROR, ctx.failure().getMessage())
                : new StopReport(StopReason.COMPLETED, "all entities are done");
    }

    private boolean allDone() {
        epoch.lock();
        try {
            return active.isEmpty();
        } finally {
            epoch.unlock();
        }
    }

    /**
     * Runs one epoch on the calling thread and returns how many entity executions were READY (starts included).
     * Throws {@link IllegalStateException} before {@code runAsync()} or after the run ended, and the codelet's
     * {@link io.jkompute.graph.GraphExecutionException} when one fails (the run then ends with that error).
     */
    public long runEpoch(double budgetMs) {
        epoch.lock();
        try {
            ExecutionContext ctx = context;
            if (ctx == null) {
                throw new IllegalStateException("runEpoch before the graph runs: call Graph.runAsync() first");
            }
            if (ended) {
                throw new IllegalStateException("runEpoch after the graph's run ended");
            }
            Clock c = clock();
            long start = c.timestamp();
            long budgetNs = budgetMs > 0 ? (long) (budgetMs * 1e6) : 0;
            long ready = 0;
            boolean once = budgetNs == 0;
            while (!ctx.stopRequested() && !active.isEmpty()) {
                if (!once && c.timestamp() - start > budgetNs) {
                    break;
                }
                int readyThisPass = 0;
                for (int i = 0; i < active.size(); i++) {
                    SchedulingCondition cond;
                    try {
                        cond = ctx.execute(active.get(i), c.timestamp());
                    } catch (RuntimeException | Error e) {
                        ctx.fail(e);
                        throw e;
                    }
                    switch (cond.type()) {
                        case READY -> readyThisPass++;
                        case NEVER -> active.remove(i--);
                        default -> { }
                    }
                }
                ready += readyThisPass;
                if (once || readyThisPass == 0) {
                    break;
                }
            }
            return ready;
        } finally {
            epoch.unlock();
        }
    }
}

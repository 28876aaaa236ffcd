package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.Entity;
import io.jkompute.graph.ExecutionContext;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.Scheduler;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.StopReason;
import java.util.ArrayList;
import java.util.List;

/**
 * One thread; every pass executes each active entity in order (so an upstream tick can be followed by the
 * downstream tick in the same pass). When nothing is READY it sleeps until the earliest WAIT_TIME target (a manual
 * clock jumps there), blocks for events, or declares a deadlock. Parameters: {@code clock}, {@code max_duration_ms},
 * {@code stop_on_deadlock} (true), {@code check_recession_period_ms} (0), {@code stop_on_deadlock_timeout} (0).
 */
public final class GreedyScheduler extends Scheduler {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public GreedyScheduler() {
    }

    private final SchedulerParameters common = new SchedulerParameters();
    private Parameter<Double> recessionMs;

    @Override
    protected void registerInterface(Registrar r) {
        common.register(r);
        recessionMs = r.parameter("check_recession_period_ms", ParameterTypes.FLOAT64,
                "sleep while everything waits with no target time", 0.0);
    }

    @Override
    protected void initialize() {
        if (recessionMs.get() < 0) {
            throw new IllegalArgumentException("parameter 'check_recession_period_ms' must be ≥ 0");
        }
    }

    @Override
    public Clock clock() {
        return common.clock.get();
    }

    @Override
    protected StopReport schedule(ExecutionContext ctx) throws InterruptedException {
        Clock clock = clock();
        List<Entity> active = new ArrayList<>(ctx.entities());
        long deadline = common.deadline(clock.timestamp());
        DeadlockWatch watch = common.deadlockWatch();
        long recessionNs = (long) (recessionMs.get() * 1e6);
        while (true) {
            if (ctx.stopRequested()) {
                return new StopReport(StopReason.INTERRUPTED, "interrupted");
            }
            if (deadline != Long.MAX_VALUE && clock.timestamp() > deadline) { // no clock reading per pass without one
                return new StopReport(StopReason.MAX_DURATION, "max_duration_ms " + common.maxDurationMs.get() + " reached");
            }
            long seq = ctx.eventSequence();
            int ready = 0;
            int waitEvent = 0;
            long earliest = Long.MAX_VALUE;
            for (int i = 0; i < active.size(); i++) {
                Entity e = active.get(i);
                long now = clock.timestamp();
                SchedulingCondition c = ctx.execute(e, now);
                switch (c.type()) {
                    case READY -> ready++;
                    case WAIT_TIME -> earliest = Math.min(earliest, c.targetTimestamp());
                    case WAIT_EVENT -> waitEvent++;
                    case NEVER -> active.remove(i--);
                    case WAIT -> { }
                }
            }
            if (active.isEmpty()) {
                return new StopReport(StopReason.COMPLETED, "all entities are done");
            }
            if (ready > 0) {
                watch.progress();
                continue;
            }
            if (earliest != Long.MAX_VALUE) {
                watch.progress();
                ctx.awaitTime(seq, earliest);
                continue;
            }
            if (waitEvent > 0) {
                watch.progress();
                ctx.awaitEvent(seq, SchedulerParameters.waitCap(clock, deadline));
                continue;
            }
            if (watch.stuck()) {
                return new StopReport(StopReason.DEADLOCK, DeadlockWatch.MESSAGE + ":\n"
                        + ctx.describeWaiting(active, clock.timestamp()));
            }
            // waiting for a deadlock timeout, or told never to stop on one: poll politely
            ctx.awaitEvent(seq, recessionNs > 0 ? recessionNs : 1_000_000);
        }
    }
}

package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.ExecutionContext;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.Scheduler;

/**
 * Re-evaluates an entity only when an event concerns it: a message arrived, a queue it sends to freed room, its
 * target time came, a term's state changed, memory was freed, or an external notify; no polling. READY entities go
 * to {@code worker_thread_number} workers (default 1). Also {@code clock}, {@code max_duration_ms},
 * {@code stop_on_deadlock}, {@code stop_on_deadlock_timeout}; {@code thread_pool_allocation_auto} is accepted.
 */
public final class EventBasedScheduler extends Scheduler {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public EventBasedScheduler() {
    }

    private final SchedulerParameters common = new SchedulerParameters();
    private Parameter<Long> workerThreads;

    @Override
    protected void registerInterface(Registrar r) {
        common.register(r);
        workerThreads = r.parameter("worker_thread_number", ParameterTypes.INT64, "worker threads", 1L);
        r.parameter("thread_pool_allocation_auto", ParameterTypes.BOOL, "accepted for GXF files", true);
    }

    @Override
    protected void initialize() {
        Workers.check(workerThreads.get());
    }

    @Override
    public Clock clock() {
        return common.clock.get();
    }

    @Override
    protected StopReport schedule(ExecutionContext ctx) throws InterruptedException {
        return new WorkerPool(ctx, clock(), (int) (long) workerThreads.get(), true, 1_000_000, common).run();
    }
}

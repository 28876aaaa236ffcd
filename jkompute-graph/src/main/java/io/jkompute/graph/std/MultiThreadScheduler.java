package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.ExecutionContext;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.Scheduler;

/**
 * A dispatcher checks every idle entity and hands READY ones to {@code worker_thread_number} workers (default 1);
 * WAIT entities are re-polled after any event or every {@code check_recession_period_ms} (default 5.0). Also
 * {@code clock}, {@code max_duration_ms}, {@code stop_on_deadlock}, {@code stop_on_deadlock_timeout};
 * {@code thread_pool_allocation_auto} and {@code strict_job_thread_pinning} are accepted for GXF files.
 */
public final class MultiThreadScheduler extends Scheduler {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public MultiThreadScheduler() {
    }

    private final SchedulerParameters common = new SchedulerParameters();
    private Parameter<Double> recessionMs;
    private Parameter<Long> workerThreads;

    @Override
    protected void registerInterface(Registrar r) {
        common.register(r);
        recessionMs = r.parameter("check_recession_period_ms", ParameterTypes.FLOAT64,
                "how often WAIT entities are polled", 5.0);
        workerThreads = r.parameter("worker_thread_number", ParameterTypes.INT64, "worker threads", 1L);
        r.parameter("thread_pool_allocation_auto", ParameterTypes.BOOL, "accepted for GXF files", true);
        r.parameter("strict_job_thread_pinning", ParameterTypes.BOOL, "accepted for GXF files", false);
    }

    @Override
    protected void initialize() {
        Workers.check(workerThreads.get());
        if (!(recessionMs.get() > 0)) {
            throw new IllegalArgumentException("parameter 'check_recession_period_ms' must be above 0");
        }
    }

    @Override
    public Clock clock() {
        return common.clock.get();
    }

    @Override
    protected StopReport schedule(ExecutionContext ctx) throws InterruptedException {
        return new WorkerPool(ctx, clock(), (int) (long) workerThreads.get(), false,
                (long) (recessionMs.get() * 1e6), common).run();
    }
}

package io.jkompute.graph.std;

import io.jkompute.graph.Component;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GXF's ThreadPool resource ({@code initial_size}, {@code priority}), accepted so GXF apps that declare it load.
 * jkompute's schedulers run their own workers ({@code worker_thread_number}), so the pool's threads are never made:
 * it logs a warning saying so. Pin an entity to CPUs with {@link CPUThread}'s {@code pin_cores}.
 */
public final class ThreadPool extends Component {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public ThreadPool() {
    }

    private static final Logger LOG = LoggerFactory.getLogger(ThreadPool.class);
    private Parameter<Long> initialSize;
    private Parameter<Long> priority;

    @Override
    protected void registerInterface(Registrar r) {
        initialSize = r.parameter("initial_size", ParameterTypes.INT64, "threads made up front", 0L);
        priority = r.parameter("priority", ParameterTypes.INT64, "0 low, 1 medium, 2 high", 1L);
    }

    @Override
    protected void initialize() {
        if (initialSize.get() < 0) {
            throw new IllegalArgumentException("parameter 'initial_size' must be ≥ 0, got " + initialSize.get());
        }
        if (priority.get() < 0 || priority.get() > 2) {
            throw new IllegalArgumentException("parameter 'priority' must be 0, 1 or 2, got " + priority.get());
        }
        LOG.warn("{}: ThreadPool ignored (initial_size {}, priority {}): jkompute's schedulers run their own worker "
                + "threads (worker_thread_number); pin entities to CPUs with CPUThread's pin_cores", path(),
                initialSize.get(), priority.get());
    }
}

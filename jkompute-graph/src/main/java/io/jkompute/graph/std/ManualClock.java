package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;

/**
 * Time that only moves when someone sleeps: {@link #sleepUntil} jumps straight to the target. With a scheduler,
 * periodic graphs run deterministically and at once (every tick lands exactly on its target).
 */
public final class ManualClock extends Clock {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public ManualClock() {
    }

    private Parameter<Long> initialTimestamp;
    private volatile long now;

    @Override
    protected void registerInterface(Registrar r) {
        initialTimestamp = r.parameter("initial_timestamp", ParameterTypes.INT64, "start time in ns", 0L);
    }

    @Override
    protected void initialize() {
        now = initialTimestamp.get();
    }

    @Override
    public long timestamp() {
        return now;
    }

    @Override
    public synchronized void sleepUntil(long target) {
        if (target < now) {
            throw new IllegalArgumentException("manual clock cannot go back from " + now + " to " + target + " ns");
        }
        now = target;
    }

    /** Moves time forward by {@code ns}. */
    public synchronized void advance(long ns) {
        if (ns < 0) {
            throw new IllegalArgumentException("manual clock cannot go back (advance by " + ns + " ns)");
        }
        now += ns;
    }

    @Override
    public long wallNanosUntil(long target) {
        return 0;
    }

    @Override
    public boolean isManual() {
        return true;
    }
}

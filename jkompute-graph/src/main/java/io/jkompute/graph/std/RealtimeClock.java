package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import java.util.concurrent.locks.LockSupport;

/**
 * Wall time: {@code initial_time_offset} (s) + {@code initial_time_scale} × elapsed since initialization
 * ({@code use_time_since_epoch} adds the Unix epoch time).
 */
public final class RealtimeClock extends Clock {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public RealtimeClock() {
    }

    private Parameter<Double> initialOffset;
    private Parameter<Double> initialScale;
    private Parameter<Boolean> useEpoch;
    private volatile long offsetNs;
    private volatile double scale = 1.0;
    private volatile long reference = System.nanoTime();

    @Override
    protected void registerInterface(Registrar r) {
        initialOffset = r.parameter("initial_time_offset", ParameterTypes.FLOAT64, "start time in seconds", 0.0);
        initialScale = r.parameter("initial_time_scale", ParameterTypes.FLOAT64, "speed of time (> 0)", 1.0);
        useEpoch = r.parameter("use_time_since_epoch", ParameterTypes.BOOL, "count from the Unix epoch", false);
    }

    @Override
    protected void initialize() {
        if (!(initialScale.get() > 0)) {
            throw new IllegalArgumentException("parameter 'initial_time_scale' must be above 0, got " + initialScale.get());
        }
        scale = initialScale.get();
        long offset = Math.round(initialOffset.get() * 1e9);
        if (useEpoch.get()) {
            java.time.Instant now = java.time.Instant.now();
            offset += now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }
        offsetNs = offset;
        reference = System.nanoTime();
    }

    @Override
    public long timestamp() {
        return offsetNs + (long) (scale * (System.nanoTime() - reference));
    }

    /** Changes the speed of time from now on, keeping the current timestamp. */
    public synchronized void setTimeScale(double newScale) {
        if (!(newScale > 0)) {
            throw new IllegalArgumentException("time scale must be above 0, got " + newScale);
        }
        long now = timestamp();
        reference = System.nanoTime();
        offsetNs = now;
        scale = newScale;
    }

    @Override
    public void sleepUntil(long target) throws InterruptedException {
        long left;
        while ((left = wallNanosUntil(target)) > 0) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    @Override
    public long wallNanosUntil(long target) {
        long d = target - timestamp();
        return d <= 0 ? 0 : (long) Math.ceil(d / scale);
    }

    @Override
    public boolean isManual() {
        return false;
    }
}

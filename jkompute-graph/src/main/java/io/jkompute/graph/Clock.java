package io.jkompute.graph;

/** Time for the scheduler and codelets, in nanoseconds. */
public abstract class Clock extends Component {
    /**
     * For subclasses; a component's parameters are declared in {@code registerInterface} and set when the graph loads.
     */
    protected Clock() {
    }

    /** Current time in nanoseconds. */
    public abstract long timestamp();

    /** Current time in seconds. */
    public double time() {
        return timestamp() / 1e9;
    }

    /**
     * Waits until {@code target} (clock ns). A manual clock jumps there at once; a real clock sleeps.
     * Going backwards is an error for a manual clock and a no-op for a real one.
     */
    public abstract void sleepUntil(long target) throws InterruptedException;

    /** Waits {@code duration} clock nanoseconds. */
    public void sleepFor(long duration) throws InterruptedException {
        sleepUntil(timestamp() + duration);
    }

    /**
     * Wall-clock nanoseconds until the clock reaches {@code target}, for schedulers that wait on events with a
     * timeout; 0 means "now". Manual clocks return 0: they jump instead of waiting.
     */
    public abstract long wallNanosUntil(long target);

    /** Whether time only moves when the scheduler sleeps (manual clock): waiting for time is then instant. */
    public abstract boolean isManual();
}

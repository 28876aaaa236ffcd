package io.jkompute.graph;

/**
 * Decides which entity executes when. One scheduler per graph. Implementations drive entities only through
 * {@link ExecutionContext} (which runs GXF's executor: start on first execution, term check, tick, outbox).
 */
public abstract class Scheduler extends Component {
    /**
     * For subclasses; a component's parameters are declared in {@code registerInterface} and set when the graph loads.
     */
    protected Scheduler() {
    }

    /** The clock this scheduler runs on. */
    public abstract Clock clock();

    /** Runs the graph until it is done, deadlocked, out of time or interrupted; returns why it stopped. */
    protected abstract StopReport schedule(ExecutionContext context) throws InterruptedException;

    /**
     * Called on the caller's thread by {@link Graph#runAsync()} before {@link #schedule} starts on the graph's thread:
     * a scheduler driven by the caller (the EpochScheduler) is ready to be driven as soon as runAsync returns.
     */
    protected void runStarting(ExecutionContext context) {
    }

    /** Why scheduling ended, with a detail for the user. */
    public record StopReport(StopReason reason, String detail) {
    }
}

package io.jkompute.graph;

/**
 * User code in an entity: {@link #start()} before the first tick, {@link #tick()} whenever all the entity's
 * scheduling terms say READY, {@link #stop()} after the last tick (also after a failure elsewhere). Codelets of one
 * entity tick in declaration order; exceptions stop the graph with an error naming entity, codelet and cause.
 */
public abstract class Codelet extends Component {
    /**
     * For subclasses; a component's parameters are declared in {@code registerInterface} and set when the graph loads.
     */
    protected Codelet() {
    }

    private long executionTimestamp;
    private long previousTimestamp;
    private long executionCount;
    private double deltaTime;
    private boolean started;
    final CodeletStatistics.Counter stats = new CodeletStatistics.Counter();

    /** Heavy setup before the first tick. */
    protected void start() throws Exception {
    }

    /** The work. */
    protected abstract void tick() throws Exception;

    /** Undo {@link #start()}; runs once after the last tick. */
    protected void stop() throws Exception {
    }

    /**
     * One short line on what this codelet achieved in the run, e.g. {@code "200 frames verified"}, printed with the
     * run's ending ({@link RunResult#summaries()}); null (the default) for nothing to say.
     */
    public String summary() {
        return null;
    }

    /** Clock time (ns) at the beginning of the current start/tick/stop. */
    public final long executionTimestamp() {
        return executionTimestamp;
    }

    /** {@link #executionTimestamp()} in seconds. */
    public final double executionTime() {
        return executionTimestamp / 1e9;
    }

    /** Seconds since the previous execution (0 during start and stop). */
    public final double deltaTime() {
        return deltaTime;
    }

    /** 0 in start, 1 in the first tick, incremented before every tick. */
    public final long executionCount() {
        return executionCount;
    }

    /** True in the first tick. */
    public final boolean isFirstTick() {
        return executionCount == 1;
    }

    final boolean started() {
        return started;
    }

    final void beforeStart(long now) {
        executionTimestamp = now;
        previousTimestamp = now;
        executionCount = 0;
        deltaTime = 0;
    }

    final void markStarted(boolean s) {
        started = s;
    }

    final void beforeTick(long now) {
        executionCount++;
        previousTimestamp = executionTimestamp;
        deltaTime = (now - executionTimestamp) / 1e9;
        executionTimestamp = now;
    }

    /** GXF quirk kept on purpose: stop() sees the previous execution's timestamp and a delta of 0. */
    final void beforeStop() {
        executionTimestamp = executionCount == 0 ? executionTimestamp : previousTimestamp;
        deltaTime = 0;
    }
}

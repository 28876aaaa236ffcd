package io.jkompute.graph;

/**
 * A component told when its graph's run has ended (GXF's JobStatistics writes its report there). Called on the run's
 * thread after every codelet stopped and before {@link Graph#await()} returns; an exception is logged with the
 * component's path and does not change the run's result.
 */
public interface RunListener {
    /** The run ended with {@code result}. */
    void runFinished(RunResult result) throws Exception;
}

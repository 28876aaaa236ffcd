package io.jkompute.bench;

/** Told after each step of a run, so a front end can draw a progress bar. */
@FunctionalInterface
public interface Progress {
    /** A progress listener that ignores everything. */
    Progress NONE = (suite, label, done, total) -> { };

    /**
     * Told after each step of the run.
     *
     * @param suite the suite running
     * @param label the step just finished, e.g. "saxpy 64 MiB raw CUDA"
     * @param done  steps finished in the whole run
     * @param total steps planned in the whole run
     */
    void step(String suite, String label, int done, int total);

    /**
     * Told now and then during a long step (every few seconds at most): how far the step itself is, in its own unit,
     * so a front end can show its count and the time it has left.
     *
     * @param label the step running, e.g. "throughput check"
     * @param done  units done, e.g. evaluations
     * @param total units the step runs
     * @param unit  what a unit is, e.g. "evaluations"
     */
    default void within(String suite, String label, long done, long total, String unit) {
    }
}

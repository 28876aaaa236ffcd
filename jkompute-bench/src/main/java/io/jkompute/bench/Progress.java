package io.jkompute.bench;

/** Told after each step of a run, so a front end can draw a progress bar. */
@FunctionalInterface
public interface Progress {
    Progress NONE = (suite, label, done, total) -> { };

    /**
     * @param suite the suite running
     * @param label the step just finished, e.g. "saxpy 64 MiB raw CUDA"
     * @param done  steps finished in the whole run
     * @param total steps planned in the whole run
     */
    void step(String suite, String label, int done, int total);
}

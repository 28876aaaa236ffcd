package io.jkompute.bench.internal;

/** One benchmark suite: jkompute beside its raw baselines and peers. */
public interface Suite {
    String name();

    String title();

    /** Steps it will report to the progress bar under these options. */
    int steps(Context ctx);

    /** Runs: checks first, then timings; records everything into {@code out}. */
    void run(Context ctx, Recorder out);
}

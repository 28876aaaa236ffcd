package io.jkompute.graph.std;

/** How MultiMessageAvailableSchedulingTerm counts. */
public enum SamplingMode {
    /** The sum over all receivers must reach {@code min_sum}. */
    SumOfAll,
    /** Every receiver i must hold {@code min_sizes[i]}. */
    PerReceiver
}

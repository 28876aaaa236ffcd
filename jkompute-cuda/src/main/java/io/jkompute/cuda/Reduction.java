package io.jkompute.cuda;

/** The reductions of {@link GpuArray#reduce(Reduction, Stream, boolean, int...)}, numpy's names. */
public enum Reduction {
    SUM, PROD, MEAN, MIN, MAX, ARGMIN, ARGMAX, ANY, ALL
}

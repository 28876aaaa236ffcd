package io.jkompute.cuda;

/** The reductions of {@link GpuArray#reduce(Reduction, Stream, boolean, int...)}, numpy's names. */
public enum Reduction {
    /** The sum ({@code sum}); integers sum in their widened numpy type. */
    SUM,
    /** The product ({@code prod}). */
    PROD,
    /** The arithmetic mean ({@code mean}); integers average in float64. */
    MEAN,
    /** The smallest element ({@code min}); NaN propagates. */
    MIN,
    /** The largest element ({@code max}); NaN propagates. */
    MAX,
    /** The flat index of the first smallest element ({@code argmin}), int64. */
    ARGMIN,
    /** The flat index of the first largest element ({@code argmax}), int64. */
    ARGMAX,
    /** Whether any element is non-zero ({@code any}), bool. */
    ANY,
    /** Whether every element is non-zero ({@code all}), bool. */
    ALL
}

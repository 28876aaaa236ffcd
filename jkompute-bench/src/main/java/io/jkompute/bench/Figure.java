package io.jkompute.bench;

/**
 * One measured figure: what ran ({@code metric}, e.g. "saxpy"), through which implementation ({@code impl}, e.g.
 * "jkompute", "raw Vulkan", "raw CUDA"), at which size ({@code bytes}, 0 when size does not apply), in which unit,
 * and the statistics of its samples.
 */
public record Figure(String suite, String metric, String impl, long bytes, String unit, Summary stats) {
    /** The value tables and ratios use: the median. */
    public double value() {
        return stats.p50();
    }

    /** Whether larger values are better (bandwidth, rates) or smaller (latency, time per dispatch). */
    public boolean higherIsBetter() {
        return !unit.equals("µs");
    }
}

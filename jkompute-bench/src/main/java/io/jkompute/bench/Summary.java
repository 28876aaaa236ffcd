package io.jkompute.bench;

import java.util.Arrays;

/**
 * Order statistics of one measurement's samples: the median is what tables show, the spread (p90 − p10, relative to
 * the median) says how steady it was.
 */
public record Summary(int count, double min, double p10, double p50, double p90, double p99, double max) {

    /**
     * Count, min, nearest-rank p10/p50/p90/p99 and max of {@code samples}; throws {@link IllegalArgumentException} when
     * there are none.
     */
    public static Summary of(double[] samples) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        double[] s = samples.clone();
        Arrays.sort(s);
        return new Summary(s.length, s[0], pct(s, 10), pct(s, 50), pct(s, 90), pct(s, 99), s[s.length - 1]);
    }

    /** Nearest-rank percentile of sorted samples. */
    static double pct(double[] sorted, double p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** (p90 − p10) / p50, in percent. */
    public double spreadPercent() {
        return p50 == 0 ? 0 : (p90 - p10) / p50 * 100;
    }

    /** The same statistics of 1/x·k, e.g. GB/s from ns: the order flips, so low and high swap. */
    public Summary reciprocal(double k) {
        return new Summary(count, k / max, k / p90, k / p50, k / p10, k / min, k / min);
    }
}

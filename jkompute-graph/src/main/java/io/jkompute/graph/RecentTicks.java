package io.jkompute.graph;

import java.util.Arrays;

/**
 * The durations (ns) of the most recent ticks of an entity or codelet, oldest first, at most {@link #CAPACITY}:
 * what GXF's JobStatistics takes its medians and percentiles from ({@code event_history_count}).
 */
public final class RecentTicks {
    /** How many recent tick durations are kept per entity and per codelet. */
    public static final int CAPACITY = 1024;
    private static final RecentTicks NONE = new RecentTicks(new long[0]);

    private final long[] durations;

    private RecentTicks(long[] durations) {
        this.durations = durations;
    }

    /** The durations of the last {@code n} ticks at most, oldest first. */
    public long[] last(int n) {
        int k = Math.min(Math.max(n, 0), durations.length);
        return Arrays.copyOfRange(durations, durations.length - k, durations.length);
    }

    /** Number of durations kept. */
    public int size() {
        return durations.length;
    }

    /**
     * The {@code q}-quantile (0..1, nearest rank) of the last {@code window} ticks' durations; 0 when none ticked.
     * q = 0.5 is the median.
     */
    public long quantile(double q, int window) {
        if (!(q >= 0 && q <= 1)) {
            throw new IllegalArgumentException("quantile must be in 0..1, got " + q);
        }
        long[] sorted = last(window);
        if (sorted.length == 0) {
            return 0;
        }
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(rank - 1, 0)];
    }

    /** Ring buffer written only by the thread executing the entity. */
    static final class Ring {
        private final long[] ring = new long[CAPACITY];
        private long written;

        void add(long ns) {
            ring[(int) (written++ % CAPACITY)] = ns;
        }

        void reset() {
            written = 0;
        }

        RecentTicks snapshot() {
            int n = (int) Math.min(written, CAPACITY);
            if (n == 0) {
                return NONE;
            }
            long[] out = new long[n];
            long first = written - n;
            for (int i = 0; i < n; i++) {
                out[i] = ring[(int) ((first + i) % CAPACITY)];
            }
            return new RecentTicks(out);
        }
    }
}

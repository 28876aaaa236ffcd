package io.jkompute.graph;

/**
 * Tick statistics of one codelet for one run. A codelet's tick time runs from the end of the previous codelet's tick
 * in its entity (the first codelet's: from the start of the entity's execution, inbox sync included) to the start of
 * the next one's (the last codelet's: to the end of the execution, terms and outbox delivery included), so one clock
 * reading serves two codelets and the codelets' times add up to the entity's.
 */
public record CodeletStatistics(String entity, String codelet, String type, long ticks, long totalTickNs,
                                long maxTickNs, RecentTicks recentTicks) {
    /** Mean tick time in nanoseconds (0 when it never ticked). */
    public double meanTickNs() {
        return ticks == 0 ? 0 : (double) totalTickNs / ticks;
    }

    /** Mutable counters, written only by the thread executing the entity. */
    static final class Counter {
        long ticks;
        long totalNs;
        long maxNs;
        final RecentTicks.Ring recent = new RecentTicks.Ring();

        void add(long ns) {
            recent.add(ns);
            ticks++;
            totalNs += ns;
            if (ns > maxNs) {
                maxNs = ns;
            }
        }

        void reset() {
            ticks = 0;
            totalNs = 0;
            maxNs = 0;
            recent.reset();
        }
    }
}

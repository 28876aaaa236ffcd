package io.jkompute.graph.std;

/** How a periodic term catches up after late ticks. */
public enum PeriodicSchedulingPolicy {
    /** next = previous target + period: late ticks are made up back to back (default). */
    CatchUpMissedTicks,
    /** next = actual tick time + period. */
    MinTimeBetweenTicks,
    /** next = the first grid point (target + k·period) after the actual tick time: missed ticks are skipped. */
    NoCatchUpMissedTicks
}

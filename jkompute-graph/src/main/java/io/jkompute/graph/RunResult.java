package io.jkompute.graph;

/** The outcome of a graph run: why it stopped, a detail (the deadlock report), its duration and statistics. */
public record RunResult(StopReason reason, String detail, long durationNs, JobStatistics statistics) {
    @Override
    public String toString() {
        return reason + (detail == null || detail.isEmpty() ? "" : ": " + detail) + " after "
                + String.format("%.3f ms", durationNs / 1e6);
    }
}

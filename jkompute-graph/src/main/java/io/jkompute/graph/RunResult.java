package io.jkompute.graph;

import java.util.List;

/**
 * The outcome of a graph run: why it stopped, a detail (one line for a completed run; for a deadlock, the entities
 * left waiting and for what), its duration, statistics, and the codelets' summaries ("verify/equal: 200 frames
 * verified", see {@link Codelet#summary()}).
 */
public record RunResult(StopReason reason, String detail, long durationNs, JobStatistics statistics,
        List<String> summaries) {
    /** Copies {@code summaries} (null: none). */
    public RunResult {
        summaries = summaries == null ? List.of() : List.copyOf(summaries);
    }

    /** A result without summaries. */
    public RunResult(StopReason reason, String detail, long durationNs, JobStatistics statistics) {
        this(reason, detail, durationNs, statistics, List.of());
    }

    @Override
    public String toString() {
        return reason + (detail == null || detail.isEmpty() ? "" : ": " + detail) + " after "
                + String.format("%.3f ms", durationNs / 1e6);
    }
}

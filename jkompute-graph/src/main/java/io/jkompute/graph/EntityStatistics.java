package io.jkompute.graph;

import java.util.List;

/** Execution statistics of one entity for one run: ticks, tick time, messages in and out, per-codelet figures. */
public record EntityStatistics(String entity, long ticks, long totalTickNs, long maxTickNs, long messagesIn,
                               long messagesOut, List<CodeletStatistics> codelets,
                               RecentTicks recentTicks) {
    /** Mean tick time in nanoseconds; 0 when the entity never ticked. */
    public double meanTickNs() {
        return ticks == 0 ? 0 : (double) totalTickNs / ticks;
    }
}

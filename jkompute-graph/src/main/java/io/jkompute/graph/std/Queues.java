package io.jkompute.graph.std;

import io.jkompute.graph.QueuePolicy;
import io.jkompute.graph.internal.StagingQueue;

/** Builds the staging queue both double-buffer ends use, checking the capacity. */
final class Queues {
    private Queues() {
    }

    static StagingQueue create(long capacity, QueuePolicy policy) {
        if (capacity < 1 || capacity > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("parameter 'capacity' must be between 1 and " + Integer.MAX_VALUE
                    + ", got " + capacity);
        }
        return new StagingQueue((int) capacity, policy);
    }
}

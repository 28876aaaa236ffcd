package io.jkompute.graph.std;

import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.QueuePolicy;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.internal.StagingQueue;

/** The parameters both double-buffer ends have, {@code capacity} (1) and {@code policy} (2), and the queue they make. */
final class QueueParameters {
    private Parameter<Long> capacity;
    private Parameter<QueuePolicy> policy;

    void register(Registrar r) {
        capacity = r.parameter("capacity", ParameterTypes.UINT64, "messages per stage", 1L);
        policy = r.parameter("policy", ParameterTypes.enumeration(QueuePolicy.class),
                "full queue: 0 drop oldest, 1 drop newest, 2 fault", QueuePolicy.FAULT);
    }

    StagingQueue createQueue() {
        long c = capacity.get();
        if (c < 1 || c > StagingQueue.MAX_CAPACITY) {
            // both stages are preallocated, as GXF's are
            throw new IllegalArgumentException("parameter 'capacity' must be between 1 and " + StagingQueue.MAX_CAPACITY
                    + " (queues are preallocated), got " + c);
        }
        return new StagingQueue((int) c, policy.get());
    }
}

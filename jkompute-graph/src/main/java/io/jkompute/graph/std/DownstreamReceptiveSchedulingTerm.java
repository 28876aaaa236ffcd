package io.jkompute.graph.std;

import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;
import io.jkompute.graph.Transmitter;
import java.util.List;

/**
 * Back-pressure: READY iff every receiver connected to {@code transmitter} has room,
 * {@code back_size + min_size ≤ capacity − size}; otherwise WAIT. An unconnected transmitter gives NEVER. READY carries
 * the time it became READY, as in GXF.
 */
public final class DownstreamReceptiveSchedulingTerm extends SchedulingTerm {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public DownstreamReceptiveSchedulingTerm() {
    }

    private Parameter<Transmitter> transmitter;
    private Parameter<Long> minSize;

    @Override
    protected void registerInterface(Registrar r) {
        transmitter = r.handle("transmitter", Transmitter.class, "the transmitter whose receivers must have room");
        minSize = r.parameter("min_size", ParameterTypes.UINT64, "room needed in every receiver", 1L);
    }

    @Override
    public SchedulingCondition check(long now) {
        Transmitter tx = transmitter.get();
        int n = tx.targetCount();
        long min = minSize.get();
        if (n == 0) {
            int remote = tx.remoteRoom();
            if (remote < 0) {
                return notReady(SchedulingCondition.NEVER);
            }
            return remote >= min ? readySince(now) : notReady(SchedulingCondition.WAIT);
        }
        for (int i = 0; i < n; i++) { // no iterator or list view per check
            Receiver r = tx.target(i);
            // backSize() before size(): the lock-free queue guarantees a message moving between them is counted
            if (r.backSize() + min > (long) r.capacity() - r.size()) {
                return notReady(SchedulingCondition.WAIT);
            }
        }
        return readySince(now);
    }

    @Override
    public String describeState(long now) {
        StringBuilder sb = new StringBuilder(check(now).toString());
        if (transmitter.get().targets().isEmpty() && transmitter.get().remoteRoom() >= 0) {
            return sb.append(": room for ").append(minSize.get()).append(" needed across the link of '")
                    .append(transmitter.get().path()).append("', ").append(transmitter.get().remoteRoom())
                    .append(" free").toString();
        }
        if (transmitter.get().targets().isEmpty()) {
            return sb.append(": '").append(transmitter.get().path()).append("' is not connected").toString();
        }
        sb.append(": room for ").append(minSize.get()).append(" needed in");
        for (Receiver r : transmitter.get().targets()) {
            sb.append(" '").append(r.path()).append("' (").append(r.size()).append('+').append(r.backSize())
                    .append(" of ").append(r.capacity()).append(')');
        }
        return sb.toString();
    }
}

package io.jkompute.graph.std;

import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;

/**
 * READY iff {@code back_size + size ≥ min_size} and, when {@code front_stage_max_size} is set,
 * {@code size ≤ front_stage_max_size}; otherwise WAIT. READY carries the time it became READY, as in GXF.
 */
public final class MessageAvailableSchedulingTerm extends SchedulingTerm {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public MessageAvailableSchedulingTerm() {
    }

    private Parameter<Receiver> receiver;
    private Parameter<Long> minSize;
    private Parameter<Long> frontStageMaxSize;

    @Override
    protected void registerInterface(Registrar r) {
        receiver = r.handle("receiver", Receiver.class, "the queue to watch");
        minSize = r.parameter("min_size", ParameterTypes.UINT64, "messages needed", 1L);
        frontStageMaxSize = r.optional("front_stage_max_size", ParameterTypes.UINT64,
                "do not run while the main stage holds more than this");
    }

    @Override
    public SchedulingCondition check(long now) {
        Receiver rx = receiver.get();
        int size = rx.size();
        if (rx.backSize() + size < minSize.get()) {
            return notReady(SchedulingCondition.WAIT);
        }
        if (frontStageMaxSize.isSet() && size > frontStageMaxSize.get()) {
            return notReady(SchedulingCondition.WAIT);
        }
        return readySince(now);
    }

    @Override
    public String describeState(long now) {
        Receiver rx = receiver.get();
        return check(now) + ": " + (rx.size() + rx.backSize()) + " of min_size " + minSize.get() + " messages in '"
                + rx.path() + "'";
    }
}

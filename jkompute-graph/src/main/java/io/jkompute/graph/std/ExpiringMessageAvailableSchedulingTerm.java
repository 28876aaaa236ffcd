package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.Message;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;
import io.jkompute.graph.Timestamp;

/**
 * Batches with a deadline: WAIT while empty; READY once {@code max_batch_size} messages are queued; otherwise READY
 * when the oldest message's acqtime + {@code max_delay_ns} has passed, else WAIT_TIME until then.
 */
public final class ExpiringMessageAvailableSchedulingTerm extends SchedulingTerm {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public ExpiringMessageAvailableSchedulingTerm() {
    }

    private Parameter<Long> maxBatchSize;
    private Parameter<Long> maxDelayNs;
    private Parameter<Receiver> receiver;
    private Parameter<Clock> clock;

    @Override
    protected void registerInterface(Registrar r) {
        maxBatchSize = r.parameter("max_batch_size", ParameterTypes.INT64, "messages that make a full batch");
        maxDelayNs = r.parameter("max_delay_ns", ParameterTypes.INT64, "longest wait after the oldest acqtime");
        receiver = r.handle("receiver", Receiver.class, "the queue to watch");
        clock = r.handle("clock", Clock.class, "the clock acqtimes are measured on");
    }

    @Override
    public SchedulingCondition check(long now) {
        Receiver rx = receiver.get();
        int queued = rx.size() + rx.backSize();
        if (queued == 0) {
            return SchedulingCondition.WAIT;
        }
        if (queued >= maxBatchSize.get()) {
            return SchedulingCondition.ready(now);
        }
        Message oldest = rx.size() > 0 ? rx.peek(0) : rx.peekBack(0);
        Timestamp ts = oldest == null ? null : oldest.timestamp();
        if (ts == null) {
            throw new IllegalStateException("the oldest message in '" + rx.path() + "' has no Timestamp; "
                    + "ExpiringMessageAvailableSchedulingTerm needs acqtimes");
        }
        long deadline = ts.acqtime() + maxDelayNs.get();
        return deadline <= now ? SchedulingCondition.ready(now) : SchedulingCondition.waitTime(deadline);
    }

    /** The clock given in the parameters (acqtimes are in its time base). */
    public Clock clock() {
        return clock.get();
    }
}

package io.jkompute.graph.std;

import io.jkompute.graph.Codelet;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.Timestamp;
import io.jkompute.graph.Transmitter;
import java.util.List;

/**
 * GXF's Synchronization: forwards messages of its {@code inputs} whose acqtimes match. Each tick needs a message in
 * every input (schedule it with a MultiMessageAvailableSchedulingTerm, PerReceiver, min_sizes 1 each). The target is
 * the newest of the inputs' oldest acqtimes; a message older than target − {@code sync_threshold} can never be
 * matched and is dropped; when every input holds a message within the threshold of the target, the oldest such
 * message of each input is published on the output of the same index (one set per tick). Messages need a timestamp.
 */
public final class Synchronization extends Codelet {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public Synchronization() {
    }

    private Parameter<List<Receiver>> inputs;
    private Parameter<List<Transmitter>> outputs;
    private Parameter<Long> syncThreshold;
    private long dropped;

    @Override
    protected void registerInterface(Registrar r) {
        inputs = r.parameter("inputs", ParameterTypes.list(ParameterTypes.handle(Receiver.class)),
                "the receivers to synchronize");
        outputs = r.parameter("outputs", ParameterTypes.list(ParameterTypes.handle(Transmitter.class)),
                "one transmitter per input, same order");
        syncThreshold = r.parameter("sync_threshold", ParameterTypes.INT64,
                "largest acqtime difference (ns) still counted as the same time", 0L);
    }

    @Override
    protected void initialize() {
        if (inputs.get().size() < 2) {
            throw new IllegalArgumentException("parameter 'inputs' needs at least 2 receivers, got "
                    + inputs.get().size());
        }
        if (outputs.get().size() != inputs.get().size()) {
            throw new IllegalArgumentException("parameter 'outputs' needs one transmitter per input: "
                    + inputs.get().size() + " inputs, " + outputs.get().size() + " outputs");
        }
        if (syncThreshold.get() < 0) {
            throw new IllegalArgumentException("parameter 'sync_threshold' must be ≥ 0, got " + syncThreshold.get());
        }
    }

    @Override
    protected void tick() {
        List<Receiver> in = inputs.get();
        long threshold = syncThreshold.get();
        long[][] acqtimes = new long[in.size()][];
        long target = Long.MIN_VALUE;
        for (int i = 0; i < in.size(); i++) {
            Receiver r = in.get(i);
            if (r.size() == 0) {
                throw new IllegalStateException("no message in '" + r.path() + "' to synchronize: every input needs "
                        + "one per tick");
            }
            acqtimes[i] = new long[r.size()];
            for (int j = 0; j < acqtimes[i].length; j++) {
                Timestamp t = r.peek(j).timestamp();
                if (t == null) {
                    throw new IllegalStateException("a message in '" + r.path() + "' has no timestamp to synchronize by");
                }
                acqtimes[i][j] = t.acqtime();
            }
            target = Math.max(target, acqtimes[i][0]);
        }
        // every input must have one message within the threshold of the others for a set to go out
        long lower = target;
        long upper = target;
        int matched = 0;
        for (long[] times : acqtimes) {
            for (int j = times.length - 1; j >= 0; j--) {
                if (times[j] <= lower + threshold && times[j] >= upper - threshold) {
                    matched++;
                    lower = Math.min(lower, times[j]);
                    upper = Math.max(upper, times[j]);
                    break;
                }
            }
        }
        boolean send = matched == in.size();
        for (int i = 0; i < in.size(); i++) {
            for (long acq : acqtimes[i]) {
                if (acq < target - threshold) {
                    in.get(i).receive();
                    dropped++;
                } else if (send && acq <= target + threshold) {
                    outputs.get().get(i).publish(in.get(i).receive());
                    break;
                }
            }
        }
    }

    /** Messages dropped because no partner with a close enough acqtime could come any more. */
    public long droppedCount() {
        return dropped;
    }

}

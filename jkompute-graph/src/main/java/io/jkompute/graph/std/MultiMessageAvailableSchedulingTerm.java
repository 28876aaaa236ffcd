package io.jkompute.graph.std;

import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;
import java.util.List;

/**
 * SumOfAll: READY iff Σ(back_size + size) ≥ {@code min_sum} ({@code min_size} is the deprecated name).
 * PerReceiver: READY iff every receiver i holds ≥ {@code min_sizes[i]}. Otherwise WAIT.
 */
public final class MultiMessageAvailableSchedulingTerm extends SchedulingTerm {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public MultiMessageAvailableSchedulingTerm() {
    }

    private Parameter<List<Receiver>> receivers;
    private Parameter<SamplingMode> mode;
    private Parameter<Long> minSum;
    private Parameter<List<Long>> minSizes;
    private Parameter<Long> minSize;
    private long sum;

    @Override
    protected void registerInterface(Registrar r) {
        receivers = r.parameter("receivers", ParameterTypes.list(ParameterTypes.handle(Receiver.class)), "queues to watch");
        mode = r.parameter("sampling_mode", ParameterTypes.enumeration(SamplingMode.class), "SumOfAll or PerReceiver",
                SamplingMode.SumOfAll);
        minSum = r.optional("min_sum", ParameterTypes.UINT64, "messages needed over all receivers");
        minSizes = r.optional("min_sizes", ParameterTypes.list(ParameterTypes.UINT64), "messages needed per receiver");
        minSize = r.optional("min_size", ParameterTypes.UINT64, "deprecated name of min_sum");
    }

    @Override
    protected void initialize() {
        if (receivers.get().isEmpty()) {
            throw new IllegalArgumentException("parameter 'receivers' must list at least one receiver");
        }
        if (mode.get() == SamplingMode.SumOfAll) {
            if (!minSum.isSet() && !minSize.isSet()) {
                throw new IllegalArgumentException("sampling_mode SumOfAll needs 'min_sum' (or the deprecated 'min_size')");
            }
            sum = minSum.isSet() ? minSum.get() : minSize.get();
        } else if (!minSizes.isSet() || minSizes.get().size() != receivers.get().size()) {
            throw new IllegalArgumentException("sampling_mode PerReceiver needs 'min_sizes' with one entry per receiver ("
                    + receivers.get().size() + ")");
        }
    }

    @Override
    public SchedulingCondition check(long now) {
        List<Receiver> rs = receivers.get();
        if (mode.get() == SamplingMode.SumOfAll) {
            long total = 0;
            for (int i = 0; i < rs.size(); i++) {
                total += rs.get(i).size() + rs.get(i).backSize();
            }
            return total >= sum ? readySince(now) : notReady(SchedulingCondition.WAIT);
        }
        List<Long> mins = minSizes.get();
        for (int i = 0; i < rs.size(); i++) {
            if (rs.get(i).size() + rs.get(i).backSize() < mins.get(i)) {
                return notReady(SchedulingCondition.WAIT);
            }
        }
        return readySince(now);
    }

    @Override
    public String describeState(long now) {
        StringBuilder sb = new StringBuilder(check(now).toString()).append(":");
        for (Receiver r : receivers.get()) {
            sb.append(' ').append(r.path()).append('=').append(r.size() + r.backSize());
        }
        return sb.append(mode.get() == SamplingMode.SumOfAll ? ", min_sum " + sum : ", min_sizes " + minSizes.get()).toString();
    }
}

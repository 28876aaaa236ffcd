package io.jkompute.graph.std;

import io.jkompute.graph.Codelet;
import io.jkompute.graph.Message;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.Transmitter;
import java.util.List;

/**
 * GXF's Gather: each tick moves the messages waiting in every receiver of its entity (in declaration order, oldest
 * first; or in the receivers listed in {@code sources}) to {@code sink}; {@code tick_source_limit} (0 = no limit)
 * caps how many it takes from one receiver per tick.
 */
public final class Gather extends Codelet {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public Gather() {
    }

    private Parameter<Transmitter> sink;
    private Parameter<Long> tickSourceLimit;
    private Parameter<List<Receiver>> sourcesParam;
    private List<Receiver> sources;

    @Override
    protected void registerInterface(Registrar r) {
        sink = r.handle("sink", Transmitter.class, "where all messages go");
        tickSourceLimit = r.parameter("tick_source_limit", ParameterTypes.INT64,
                "most messages taken from one receiver per tick; 0 for no limit", 0L);
        sourcesParam = r.handles("sources", Receiver.class, "the receivers to gather from; all of the entity's if empty");
    }

    @Override
    protected void initialize() {
        if (tickSourceLimit.get() < 0) {
            throw new IllegalArgumentException("parameter 'tick_source_limit' must be ≥ 0, got " + tickSourceLimit.get());
        }
        sources = sourcesParam.get().isEmpty() ? entity().components(Receiver.class) : sourcesParam.get();
    }

    @Override
    protected void tick() {
        long limit = tickSourceLimit.get();
        for (Receiver r : sources) {
            long n = limit == 0 ? r.size() : Math.min(limit, r.size());
            for (long i = 0; i < n; i++) {
                Message m = r.receive();
                if (m == null) {
                    break;
                }
                sink.get().publish(m);
            }
        }
    }
}

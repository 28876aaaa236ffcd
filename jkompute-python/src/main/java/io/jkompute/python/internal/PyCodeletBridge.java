package io.jkompute.python.internal;

import io.jkompute.graph.Allocator;
import io.jkompute.graph.Clock;
import io.jkompute.graph.Codelet;
import io.jkompute.graph.Component;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Transmitter;
import java.util.List;
import java.util.function.Supplier;
import java.util.Map;

/** GXF's C++ side of a PyCodeletV0 as the Python {@code CodeletAdapter} sees it ({@code set_bridge(bridge)}). */
public final class PyCodeletBridge {
    private final Codelet codelet;
    private final PyContext context;
    private final Object params;
    private final List<Receiver> receivers;
    private final List<Transmitter> transmitters;
    private final List<Allocator> allocators;
    private final List<Component> streamPools;
    private final Supplier<Clock> clock;

    public PyCodeletBridge(Codelet codelet, PyContext context, Object params, List<Receiver> receivers,
            List<Transmitter> transmitters, List<Allocator> allocators, List<Component> streamPools,
            Supplier<Clock> clock) {
        this.codelet = codelet;
        this.context = context;
        this.params = params;
        this.receivers = receivers;
        this.transmitters = transmitters;
        this.allocators = allocators;
        this.streamPools = streamPools;
        this.clock = clock;
    }

    public PyContext context() {
        return context;
    }

    public long eid() {
        return codelet.eid();
    }

    public long cid() {
        return codelet.cid();
    }

    public String name() {
        return codelet.name();
    }

    public long executionTimestamp() {
        return codelet.executionTimestamp();
    }

    public double executionTime() {
        return codelet.executionTime();
    }

    public double deltaTime() {
        return codelet.deltaTime();
    }

    public long executionCount() {
        return codelet.executionCount();
    }

    public boolean isFirstTick() {
        return codelet.isFirstTick();
    }

    /** codelet_params parsed as YAML (a map, list, scalar, or null when not given). */
    public Object params() {
        return params;
    }

    /** codelet_params as JSON text (json.loads gives the Python value), "null" when not given. */
    public String paramsJson() {
        StringBuilder sb = new StringBuilder();
        json(params, sb);
        return sb.toString();
    }

    private static void json(Object v, StringBuilder sb) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long
                || v instanceof java.math.BigInteger) {
            sb.append(v);
        } else if (v instanceof Number n) {
            double d = n.doubleValue();
            sb.append(Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity") : v);
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                string(String.valueOf(e.getKey()), sb);
                sb.append(':');
                json(e.getValue(), sb);
            }
            sb.append('}');
        } else if (v instanceof List<?> l) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                json(l.get(i), sb);
            }
            sb.append(']');
        } else {
            string(v.toString(), sb);
        }
    }

    private static void string(String s, StringBuilder sb) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    public List<Receiver> receivers() {
        return receivers;
    }

    public List<Transmitter> transmitters() {
        return transmitters;
    }

    public List<Allocator> allocators() {
        return allocators;
    }

    public List<Component> streamPools() {
        return streamPools;
    }

    public Clock clock() {
        return clock.get();
    }
}

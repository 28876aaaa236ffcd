package io.jkompute.net;

import io.jkompute.graph.Component;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.QueuePolicy;
import io.jkompute.graph.Registrar;
import java.util.concurrent.TimeUnit;

/** Shared settings of the network components: queue parameters, heartbeat timing, parameter checks. */
final class NetSettings {
    /** Heartbeats every this many ns. */
    static final long HEARTBEAT_NS = TimeUnit.MILLISECONDS.toNanos(Long.getLong("jkompute.net.heartbeatMs", 200));
    /** A peer silent this long is gone (a killed process is found within this plus one heartbeat). */
    static final long TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(Long.getLong("jkompute.net.timeoutMs", 1500));
    /** One connection retry waits this long (maximum_connection_retries of them). */
    static final long RETRY_NS = TimeUnit.MILLISECONDS.toNanos(Long.getLong("jkompute.net.retryMs", 500));

    /**
     * How long a scheduler thread of a graph with links keeps polling them after its last event before it parks
     * ({@link io.jkompute.graph.Poller}): {@code jkompute.net.schedulerSpinUs} (100 µs on machines of 8 cores or
     * more; 0, the scheduler's brief back-off alone, on smaller ones, where a spinning thread takes a core that the
     * other side of a link on the same host may need), or the graph's UcxContext {@code busy_poll_us} when that is
     * longer. A message within that time of the last one is ticked by the thread that polled it, without a wake-up;
     * an idle graph parks after it.
     */
    static long schedulerSpinNs(Graph graph) {
        long byDefault = Runtime.getRuntime().availableProcessors() >= 8 ? 100 : 0;
        long spin = TimeUnit.MICROSECONDS.toNanos(Long.getLong("jkompute.net.schedulerSpinUs", byDefault));
        return Math.max(spin, UcxContext.busyPollNs(graph));
    }

    /**
     * A link thread leaves its polling to the graph's threads while one of them polled within this time (a polling
     * thread looks every microsecond or so): it takes over soon after they stop.
     */
    static final long GRAPH_POLLS_NS = TimeUnit.MICROSECONDS.toNanos(20);

    private Parameter<Long> capacity;
    private Parameter<QueuePolicy> policy;

    private NetSettings() {
    }

    static NetSettings queue(Registrar r, long defaultCapacity) {
        NetSettings s = new NetSettings();
        s.capacity = r.parameter("capacity", ParameterTypes.UINT64, "messages per stage", defaultCapacity);
        s.policy = r.parameter("policy", ParameterTypes.enumeration(QueuePolicy.class),
                "full queue: 0 drop oldest, 1 drop newest, 2 hold the sender back (fault inside a process)",
                QueuePolicy.FAULT);
        return s;
    }

    /** The capacity, checked (queues are preallocated: at most 2^20). */
    int capacity(Component c) {
        long cap = capacity.get();
        if (cap < 1 || cap > 1 << 20) {
            throw bad(c, "capacity", "must be between 1 and " + (1 << 20) + ", got " + cap);
        }
        return (int) cap;
    }

    QueuePolicy policy() {
        return policy.get();
    }

    static int port(Component c, String key, long port, boolean zeroAllowed) {
        if (port < (zeroAllowed ? 0 : 1) || port > 65535) {
            throw bad(c, key, "must be a UDP port " + (zeroAllowed ? "0" : "1") + "–65535, got " + port);
        }
        return (int) port;
    }

    static GraphLoadException bad(Component c, String key, String what) {
        Graph g = c.graph();
        var at = g.parameterLocation(c, key);
        return new GraphLoadException(at != null ? at : g.componentLocation(c), c.typeName() + " '" + c.path() + "': parameter '"
                + key + "' " + what);
    }
}

package io.jkompute.python.internal;

import io.jkompute.DataType;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.Clock;
import io.jkompute.graph.Component;
import io.jkompute.graph.DeviceTensor;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.StorageType;
import io.jkompute.graph.Timestamp;
import io.jkompute.graph.Transmitter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.graalvm.polyglot.HostAccess.Export;

/**
 * What the {@code gxf} Python package calls into: GXF's {@code context} for one graph. Python code passes the Java
 * objects it got back (messages, queues, tensors) as opaque handles; only the methods marked {@link Export} are
 * reachable from Python.
 */
public final class PyContext {
    private final Graph graph;
    private final Map<Long, Component> codelets = new ConcurrentHashMap<>();

    public PyContext(Graph graph) {
        this.graph = graph;
    }

    /** Makes a codelet's cid usable in {@code X.get(context, cid, name)} lookups. */
    public void register(Component codelet) {
        codelets.put(codelet.cid(), codelet);
    }

    /**
     * The component named {@code handle} ("comp" in the codelet's entity or "entity/comp") of the given kind
     * (Receiver, Transmitter, Allocator, Clock or Component), as GXF's {@code Receiver.get(context, cid, name)}.
     */
    @Export
    public Component lookup(long cid, String handle, String kind) {
        Component owner = codelets.get(cid);
        if (owner == null) {
            throw new IllegalArgumentException("no Python codelet with cid " + cid + " in this graph");
        }
        Class<? extends Component> type = switch (kind) {
            case "Receiver" -> Receiver.class;
            case "Transmitter" -> Transmitter.class;
            case "Allocator" -> Allocator.class;
            case "Clock" -> Clock.class;
            default -> Component.class;
        };
        int slash = handle.indexOf('/');
        return slash < 0 ? owner.entity().component(handle, type) : graph.component(handle, type);
    }

    @Export
    public String path(Component c) {
        return c.path();
    }

    @Export
    public Message newMessage() {
        return Message.create();
    }

    /** The oldest message of the receiver's main stage, or null when empty. */
    @Export
    public Message receive(Receiver r) {
        return r.receive();
    }

    @Export
    public void publish(Transmitter t, Message m, long acqtime) {
        t.publish(m, acqtime);
    }

    /** size, back_size and capacity of a receiver or transmitter. */
    @Export
    public long[] queueSizes(Component queue) {
        if (queue instanceof Receiver r) {
            return new long[] {r.size(), r.backSize(), r.capacity()};
        }
        if (queue instanceof Transmitter t) {
            return new long[] {t.size(), t.backSize(), t.capacity()};
        }
        throw new IllegalArgumentException(queue.path() + " is neither a receiver nor a transmitter");
    }

    @Export
    public void sync(Receiver r) {
        r.sync();
    }

    /** [acqtime, pubtime], or null when the message has no timestamp. */
    @Export
    public long[] timestamp(Message m) {
        Timestamp t = m.timestamp();
        return t == null ? null : new long[] {t.acqtime(), t.pubtime()};
    }

    @Export
    public void setTimestamp(Message m, long acqtime, long pubtime) {
        m.setTimestamp(new Timestamp(pubtime, acqtime));
    }

    @Export
    public long clockTimestamp(Clock c) {
        return c.timestamp();
    }

    @Export
    public double clockTime(Clock c) {
        return c.time();
    }

    /** Names under which the message holds tensors, each once, in the order first added. */
    @Export
    public List<String> tensorNames(Message m) {
        List<String> out = new ArrayList<>();
        for (String n : m.names()) {
            if (!out.contains(n) && m.get(GraphTensor.class, n) != null) {
                out.add(n);
            }
        }
        return out;
    }

    /** The message's tensors, in the order added. */
    @Export
    public List<GraphTensor> tensors(Message m) {
        return m.findAll(GraphTensor.class);
    }

    /** The first tensor named {@code name}, or null. */
    @Export
    public GraphTensor tensor(Message m, String name) {
        return m.get(GraphTensor.class, name);
    }

    /** Allocates a dense tensor from the allocator and adds it to the message. */
    @Export
    public GraphTensor addTensor(Message m, String name, Allocator allocator, String dataType, long[] shape,
            String storage) {
        DataType type = dataType(dataType);
        GraphTensor t = switch (storage) {
            case "host", "system" -> HostTensor.allocate(allocator, type, shape);
            case "device" -> DeviceTensor.allocate(allocator, type, shape);
            default -> throw new IllegalArgumentException("storage '" + storage + "' must be host, system or device");
        };
        m.add(name, t);
        return t;
    }

    @Export
    public long[] shape(GraphTensor t) {
        return t.shape();
    }

    @Export
    public long[] strides(GraphTensor t) {
        return t.strides();
    }

    @Export
    public String dataType(GraphTensor t) {
        return t.dataType().toString();
    }

    /** host, device or system (GXF's kHost, kDevice, kSystem). */
    @Export
    public String storage(GraphTensor t) {
        return t.storage() == StorageType.DEVICE ? "device" : t.storage() == StorageType.HOST ? "host" : "system";
    }

    /** The native address and byte size of a tensor in host memory, for a view without a copy. */
    @Export
    public long[] hostMemory(GraphTensor t) {
        if (!(t instanceof HostTensor h)) {
            throw new IllegalArgumentException("tensor is in device memory; call to_host() for a host copy");
        }
        MemorySegment s = h.data();
        return new long[] {s.address(), s.byteSize()};
    }

    /**
     * A host tensor with the data: host tensors as they are, device tensors read back into memory that lives as long
     * as the returned object is reachable (the Python wrapper holds it).
     */
    @Export
    public GraphTensor toHost(GraphTensor t) {
        if (t instanceof HostTensor) {
            return t;
        }
        MemorySegment copy = t.toHost(Arena.ofAuto());
        return HostTensor.wrap(copy, t.dataType(), t.shape());
    }

    private static DataType dataType(String label) {
        for (DataType d : DataType.values()) {
            if (d.toString().equals(label) && d != DataType.CUSTOM) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown element type '" + label + "'");
    }
}

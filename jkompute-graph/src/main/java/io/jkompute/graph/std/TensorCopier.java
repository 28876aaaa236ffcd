package io.jkompute.graph.std;

import io.jkompute.graph.Codelet;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.StorageType;
import io.jkompute.graph.Timestamp;
import io.jkompute.graph.Transmitter;
import io.jkompute.graph.Allocator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * GXF's TensorCopier: each tick takes one message from {@code receiver}, copies every tensor in it into memory from
 * {@code allocator} per {@code mode} (0 to the device: Vulkan or CUDA memory, whichever the allocator holds; 1 to host,
 * 2 to system memory; strided
 * tensors become dense), and publishes a new message with the copies under the same names and the same acqtime.
 * Other components that own nothing (not {@link AutoCloseable}) travel along by reference. Unlike GXF, which
 * rewrites the received message in place and skips tensors already in the target storage, every tensor is copied
 * into a new message: a jkompute message may be shared by several receivers, so it is never changed.
 */
public final class TensorCopier extends Codelet {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public TensorCopier() {
    }

    private Parameter<Receiver> receiver;
    private Parameter<Transmitter> transmitter;
    private Parameter<Allocator> allocator;
    private Parameter<TensorCopyMode> mode;

    @Override
    protected void registerInterface(Registrar r) {
        receiver = r.handle("receiver", Receiver.class, "the messages whose tensors are copied");
        transmitter = r.handle("transmitter", Transmitter.class, "where the copies go");
        allocator = r.handle("allocator", Allocator.class, "memory for the copies");
        mode = r.parameter("mode", ParameterTypes.enumeration(TensorCopyMode.class),
                "0 kCopyToDevice, 1 kCopyToHost, 2 kCopyToSystem");
    }

    @Override
    protected void tick() {
        Message in = receiver.get().receive();
        if (in == null) {
            throw new IllegalStateException("no message in '" + receiver.get().path() + "' to copy");
        }
        Message out = Message.create();
        try (Arena arena = Arena.ofConfined()) {
            in.forEach((name, value) -> {
                if (value instanceof GraphTensor t) {
                    out.add(name, copy(t, arena));
                } else if (!(value instanceof Timestamp) && !(value instanceof AutoCloseable)) {
                    out.add(name, value);
                }
            });
        }
        Timestamp ts = in.timestamp();
        transmitter.get().publish(out, ts == null ? 0 : ts.acqtime());
    }

    private GraphTensor copy(GraphTensor t, Arena arena) {
        MemorySegment bytes = Tensors.dense(t, arena);
        if (mode.get() == TensorCopyMode.COPY_TO_DEVICE) {
            GraphTensor d = GraphTensor.allocate(allocator.get(), StorageType.DEVICE, t.dataType(), t.shape());
            try {
                d.copyFromHost(bytes);
            } catch (RuntimeException e) {
                d.close();
                throw e;
            }
            return d;
        }
        StorageType target = mode.get() == TensorCopyMode.COPY_TO_HOST ? StorageType.HOST : StorageType.SYSTEM;
        HostTensor h = HostTensor.allocate(allocator.get(), target, t.dataType(), t.shape());
        MemorySegment.copy(bytes, 0, h.data(), 0, bytes.byteSize());
        return h;
    }
}

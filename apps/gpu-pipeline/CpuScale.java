import io.jkompute.DataType;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Transmitter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The CPU reference of VulkanScale: y = 2x + 1 on the first host tensor of each message. */
public class CpuScale extends CodeletAdapter {
    private Receiver rx;
    private Transmitter tx;
    private Allocator pool;

    @Override
    public void start() {
        rx = receiver(param("receiver"));
        tx = transmitter(param("transmitter"));
        pool = allocator(param("allocator"));
    }

    @Override
    public void tick() {
        Message in = rx.receive();
        if (in == null) {
            throw new IllegalStateException("no message in " + rx.path());
        }
        HostTensor x = in.get(HostTensor.class);
        if (x == null || x.dataType() != DataType.FLOAT32 || !x.isDense()) {
            throw new IllegalStateException("expected a dense float32 host tensor, got " + in.names());
        }
        HostTensor y = HostTensor.allocate(pool, DataType.FLOAT32, x.shape());
        MemorySegment src = x.data();
        MemorySegment dst = y.data();
        for (long i = 0, n = x.elementCount(); i < n; i++) {
            dst.setAtIndex(ValueLayout.JAVA_FLOAT, i, 2.0f * src.getAtIndex(ValueLayout.JAVA_FLOAT, i) + 1.0f);
        }
        tx.publish(Message.create().add("host_tensor", y), in.timestamp() == null ? 0 : in.timestamp().acqtime());
    }
}

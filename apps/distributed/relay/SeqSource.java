import io.jkompute.DataType;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Transmitter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Publishes message n = 1, 2, … with an int64 tensor "seq" = [n] on {@code transmitter}. */
public class SeqSource extends CodeletAdapter {
    private Transmitter tx;
    private long n;

    @Override
    public void start() {
        tx = transmitter(param("transmitter"));
    }

    @Override
    public void tick() {
        n++;
        MemorySegment s = Arena.ofAuto().allocate(8, 8);
        s.set(ValueLayout.JAVA_LONG, 0, n);
        tx.publish(Message.create().add("seq", HostTensor.wrap(s, DataType.INT64, 1)));
    }
}

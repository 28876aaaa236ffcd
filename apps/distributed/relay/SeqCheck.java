import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Transmitter;
import java.lang.foreign.ValueLayout;

/**
 * Receives one message per tick from {@code receiver} and requires its "seq" to be the previous one plus 1 (a lost,
 * repeated or reordered message fails the run, naming both numbers); forwards it on {@code transmitter} when given
 * (a relay). Prints "SEQ entity last=N count=N" when it stops.
 */
public class SeqCheck extends CodeletAdapter {
    private Receiver rx;
    private Transmitter tx;
    private long last;
    private long count;

    @Override
    public void start() {
        rx = receiver(param("receiver"));
        tx = params().containsKey("transmitter") ? transmitter(param("transmitter")) : null;
    }

    @Override
    public void tick() {
        Message m = rx.receive();
        if (m == null) {
            throw new IllegalStateException("no message in '" + rx.path() + "' at tick " + executionCount());
        }
        long seq = m.get(HostTensor.class, "seq").data().get(ValueLayout.JAVA_LONG, 0);
        if (seq != last + 1) {
            throw new IllegalStateException("message " + seq + " after " + last + " (lost, repeated or reordered)");
        }
        last = seq;
        count++;
        if (tx != null) {
            tx.publish(m);
        }
    }

    @Override
    public void stop() {
        System.out.println("SEQ " + rx.path() + " last=" + last + " count=" + count);
    }
}

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Transmitter;

/** Compiled at load time: forwards each message with acqtime doubled; offset from codelet_params. */
public class Doubler extends CodeletAdapter {
    private Receiver in;
    private Transmitter out;
    private long offset;

    @Override
    public void start() {
        in = receivers().get(0);
        out = transmitters().get(0);
        offset = longParam("offset");
    }

    @Override
    public void tick() {
        Message m = in.receive();
        out.publish(Message.create(), 2 * m.timestamp().acqtime() + offset);
    }
}

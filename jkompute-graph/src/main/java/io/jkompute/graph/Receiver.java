package io.jkompute.graph;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The receiving end of a connection: a queue with a back stage (messages arrived) and a main stage (messages the
 * entity may read). The runtime syncs back → main before the entity's codelets tick.
 */
public abstract class Receiver extends Component {
    /**
     * For subclasses; a component's parameters are declared in {@code registerInterface} and set when the graph loads.
     */
    protected Receiver() {
    }

    private final List<Transmitter> sources = new CopyOnWriteArrayList<>();
    private final List<Transmitter> sourceView = java.util.Collections.unmodifiableList(sources);
    private final AtomicLong arrived = new AtomicLong();
    /** {@link #sources} as an array for the executor's per-tick loop; replaced when a connection is made. */
    private volatile Transmitter[] sourceArray = new Transmitter[0];

    /**
     * Pops the oldest message of the main stage, or returns null when there is none. Inside a tick the message is
     * released when the tick ends (retain it to keep it longer).
     */
    public final Message receive() {
        Message m = pop();
        if (m != null) {
            TickScope scope = TickScope.current();
            if (scope != null) {
                scope.own(m);
            }
        }
        return m;
    }

    /** Messages in the main stage. */
    public abstract int size();

    /** Messages arrived but not yet synced into the main stage. */
    public abstract int backSize();

    /** Maximum messages per stage. */
    public abstract int capacity();

    /** The main-stage message at {@code index} (0 = oldest) without removing it, or null. */
    public abstract Message peek(int index);

    /** The back-stage message at {@code index} (0 = oldest), or null. */
    public abstract Message peekBack(int index);

    /** Moves the back stage into the main stage, applying the overflow policy. */
    public abstract void sync();

    /** Removes the oldest main-stage message; the caller takes over the queue's reference. */
    protected abstract Message pop();

    /** Delivers a message into the back stage; the queue takes over one reference (runtime use). */
    protected abstract void push(Message message);

    /** Transmitters connected to this receiver. */
    public final List<Transmitter> sources() {
        return sourceView;
    }

    /** Messages delivered to this receiver so far (including ones dropped by the policy). */
    public final long arrivedCount() {
        return arrived.get();
    }

    /** Counts a message a receiver took in by itself (a network receiver), as the runtime's delivery does. */
    protected final void countArrival() {
        arrived.incrementAndGet();
    }

    final void deliver(Message m) {
        arrived.incrementAndGet();
        push(m);
    }

    final Transmitter[] sourceArray() {
        return sourceArray;
    }

    final void addSource(Transmitter t) {
        sources.add(t);
        sourceArray = sources.toArray(new Transmitter[0]);
    }
}

package io.jkompute.graph;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The sending end of a connection. {@link #publish} puts a message into the back stage; after the entity's
 * codelets ticked, the runtime moves every published message to every connected receiver (same object, no copy).
 */
public abstract class Transmitter extends Component {
    /**
     * For subclasses; a component's parameters are declared in {@code registerInterface} and set when the graph loads.
     */
    protected Transmitter() {
    }

    private final List<Receiver> targets = new CopyOnWriteArrayList<>();
    private final List<Receiver> targetView = java.util.Collections.unmodifiableList(targets);
    private long published;
    /** {@link #targets} as an array for the executor's per-tick delivery; replaced when a connection is made. */
    private volatile Receiver[] targetArray = new Receiver[0];

    /**
     * Publishes with a Timestamp whose pubtime is the graph clock's now and whose acqtime is kept from an existing
     * timestamp (0 if none). The transmitter takes its own reference.
     */
    public final void publish(Message message) {
        message.retain();
        try {
            message.stamp(graph().now());
            push(message);
        } catch (RuntimeException e) {
            message.release();
            throw e;
        }
        published++;
    }

    /** Publishes with a Timestamp of pubtime = clock now and the given acquisition time. */
    public final void publish(Message message, long acqtime) {
        message.retain();
        try {
            message.setTimestamp(new Timestamp(graph().now(), acqtime));
            push(message);
        } catch (RuntimeException e) {
            message.release();
            throw e;
        }
        published++;
    }

    /** Messages in the main stage (published and synced, not yet delivered). */
    public abstract int size();

    /** Messages published since the last sync. */
    public abstract int backSize();

    /** How many messages each stage of the queue holds. */
    public abstract int capacity();

    /** Moves the back stage into the main stage. */
    protected abstract void sync();

    /** Removes the oldest main-stage message; the caller takes over its reference. */
    protected abstract Message pop();

    /** Adds a published message to the back stage, applying the overflow policy; takes over one reference. */
    protected abstract void push(Message message);

    /** Receivers connected to this transmitter. */
    public final List<Receiver> targets() {
        return targetView;
    }

    /** Number of connected receivers; with {@link #target(int)}, for checks that run on every evaluation. */
    public final int targetCount() {
        return targetArray.length;
    }

    /** The {@code i}-th connected receiver, in connection order. */
    public final Receiver target(int i) {
        return targetArray[i];
    }

    /**
     * Free places in the queue of a receiver in another process, or -1 when this transmitter is not a network
     * link (then its connected receivers are checked). Network transmitters override this so
     * {@code DownstreamReceptiveSchedulingTerm} holds the sender back across the link as it does inside a process.
     */
    public int remoteRoom() {
        return -1;
    }

    /** Messages published so far. */
    public final long publishedCount() {
        return published;
    }

    final List<Receiver> targetList() {
        return targets;
    }

    final Receiver[] targetArray() {
        return targetArray;
    }

    final void addTarget(Receiver r) {
        targets.add(r);
        targetArray = targets.toArray(new Receiver[0]);
    }
}

package io.jkompute.graph;

import io.jkompute.graph.internal.StagingQueue;

/**
 * A transmitter whose published messages wait in the runtime's two-stage queue until the subclass takes them out
 * at its {@link #sync()} ({@link #syncQueue()}, then {@link #takeStaged()} until null), for transmitters that hand
 * messages to something outside the graph, such as a network link. The queue, its capacity and policy, and the
 * queue calls of {@link Transmitter} live here.
 */
public abstract class QueuedTransmitter extends Transmitter {
    /**
     * For subclasses; a component's parameters are declared in {@code registerInterface} and set when the graph loads.
     */
    protected QueuedTransmitter() {
    }

    private StagingQueue queue;

    /** Makes the queue (in {@link #initialize()}); a capacity outside 1..2^20 is an IllegalArgumentException. */
    protected final void createQueue(int capacity, QueuePolicy policy) {
        queue = new StagingQueue(capacity, policy);
    }

    /** Moves the published messages to the main stage; a QueueOverflowException when the fault policy refuses one. */
    protected final void syncQueue() {
        try {
            queue.sync();
        } catch (StagingQueue.Overflow o) {
            throw overflow(o.getMessage());
        }
    }

    /** The next message of the main stage, or null. */
    protected final Message takeStaged() {
        return queue.pop();
    }

    /** Releases the messages still queued (in {@link #deinitialize()}); returns how many. */
    protected final int clearQueue() {
        return queue == null ? 0 : queue.clear();
    }

    /** The error for a message the fault policy (2) refused; {@code detail} is the queue's account of it. */
    protected QueueOverflowException overflow(String detail) {
        return new QueueOverflowException(entity().name(), name(), "transmitter '" + path() + "' overflowed: "
                + detail + ", policy 2 (fault); publish at most " + capacity() + " message(s) per tick or raise its "
                + "capacity");
    }

    @Override
    public final int size() {
        return queue.size();
    }

    @Override
    public final int backSize() {
        return queue.backSize();
    }

    @Override
    public final int capacity() {
        return queue.capacity();
    }

    /** Messages are handed outside the graph, never to a receiver of this graph. */
    @Override
    protected final Message pop() {
        return null;
    }

    @Override
    protected final void push(Message message) {
        try {
            queue.push(message);
        } catch (StagingQueue.Overflow o) {
            throw overflow(o.getMessage());
        }
    }
}

package io.jkompute.graph;

import io.jkompute.graph.internal.StagingQueue;

/**
 * A receiver whose messages wait in the runtime's two-stage queue (GXF's staging queue: arrivals in a back stage,
 * moved to the main stage at the entity's {@link #sync()}), for receivers that are filled from outside the graph,
 * such as a network link: the queue, its capacity and policy, and every queue call of {@link Receiver} live here;
 * a subclass adds messages with {@link #offerStaged} and hears about freed places through {@link #placesFreed()}.
 * Thread-safety as the queue's: any thread may stage, only the entity's own thread syncs, peeks and pops.
 */
public abstract class QueuedReceiver extends Receiver {
    /**
     * For subclasses; a component's parameters are declared in {@code registerInterface} and set when the graph loads.
     */
    protected QueuedReceiver() {
    }

    private StagingQueue queue;
    /** Messages popped (written by the entity's thread only). */
    private volatile long popped;

    /** Makes the queue (in {@link #initialize()}); a capacity outside 1..2^20 is an IllegalArgumentException. */
    protected final void createQueue(int capacity, QueuePolicy policy) {
        queue = new StagingQueue(capacity, policy);
    }

    /** The largest capacity a queue may have (both stages are preallocated). */
    public static int maxCapacity() {
        return StagingQueue.MAX_CAPACITY;
    }

    /**
     * Puts a message that arrived from outside the graph into the back stage; false (the message not taken) when
     * the fault policy (2) finds the queue full. Policies 0 and 1 drop and count instead.
     */
    protected final boolean offerStaged(Message m) {
        try {
            queue.push(m);
            return true;
        } catch (StagingQueue.Overflow o) {
            return false;
        }
    }

    /**
     * Called after a place was freed (a message popped, or dropped by the policy at a sync): a remote sender may go on.
     */
    protected void placesFreed() {
    }

    /**
     * Called on the entity's thread at the start of every {@link #sync()}: a receiver fed from outside takes in what
     * has arrived by then (a network link polls its socket), so a codelet that syncs its receiver while it waits
     * gets the message from its own thread. Must not block.
     */
    protected void takeArrivals() {
    }

    /** Messages popped by the entity so far (read from any thread). */
    protected final long poppedCount() {
        return popped;
    }

    /** Messages the drop policies (0, 1) removed so far. */
    public final long droppedCount() {
        return queue == null ? 0 : queue.dropped();
    }

    /** Releases the messages still queued (in {@link #deinitialize()}); returns how many. */
    protected final int clearQueue() {
        return queue == null ? 0 : queue.clear();
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

    @Override
    public final Message peek(int index) {
        return queue.peek(index);
    }

    @Override
    public final Message peekBack(int index) {
        return queue.peekBack(index);
    }

    @Override
    public final void sync() {
        takeArrivals();
        long dropped = queue.dropped();
        queue.sync();
        if (queue.dropped() != dropped) {
            placesFreed();
        }
    }

    @Override
    protected final Message pop() {
        Message m = queue.pop();
        if (m != null) {
            popped++;
            placesFreed();
        }
        return m;
    }

    /** A message from a transmitter of this graph (an in-process connection to this receiver). */
    @Override
    protected final void push(Message message) {
        queue.push(message);
    }
}

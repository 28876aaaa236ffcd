package io.jkompute.graph.std;

import io.jkompute.graph.Message;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.Transmitter;
import io.jkompute.graph.internal.StagingQueue;

/**
 * GXF's DoubleBufferTransmitter: {@code capacity} (default 1), {@code policy} (0 pop, 1 reject, 2 fault; default 2).
 */
public final class DoubleBufferTransmitter extends Transmitter {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public DoubleBufferTransmitter() {
    }

    private final QueueParameters parameters = new QueueParameters();
    private StagingQueue queue;

    @Override
    protected void registerInterface(Registrar r) {
        parameters.register(r);
    }

    @Override
    protected void initialize() {
        queue = parameters.createQueue();
    }

    @Override
    protected void deinitialize() {
        if (queue != null) {
            queue.clear();
        }
    }

    @Override
    public int size() {
        return queue.size();
    }

    @Override
    public int backSize() {
        return queue.backSize();
    }

    @Override
    public int capacity() {
        return queue.capacity();
    }

    @Override
    protected void sync() {
        queue.sync();
    }

    @Override
    protected Message pop() {
        return queue.pop();
    }

    @Override
    protected void push(Message message) {
        try {
            queue.push(message);
        } catch (StagingQueue.Overflow o) {
            throw new io.jkompute.graph.QueueOverflowException(entity().name(), name(), "transmitter '" + path()
                    + "' overflowed on publish: " + o.getMessage() + ", policy 2 (fault); publish at most "
                    + capacity() + " message(s) per tick or raise its capacity");
        }
    }
}

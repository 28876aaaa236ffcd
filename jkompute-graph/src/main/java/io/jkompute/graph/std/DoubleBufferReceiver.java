package io.jkompute.graph.std;

import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.internal.StagingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** GXF's DoubleBufferReceiver: {@code capacity} (default 1), {@code policy} (0 pop, 1 reject, 2 fault; default 2). */
public final class DoubleBufferReceiver extends Receiver {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public DoubleBufferReceiver() {
    }

    private static final Logger LOG = LoggerFactory.getLogger(DoubleBufferReceiver.class);
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
            int left = queue.clear();
            if (left > 0) {
                LOG.debug("{}: dropped {} unprocessed messages", path(), left);
            }
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
    public Message peek(int index) {
        return queue.peek(index);
    }

    @Override
    public Message peekBack(int index) {
        return queue.peekBack(index);
    }

    @Override
    public void sync() {
        queue.sync();
    }

    /** Messages the pop/reject policy dropped. */
    public long droppedCount() {
        return queue.dropped();
    }

    @Override
    protected Message pop() {
        return queue.pop();
    }

    @Override
    protected void push(Message message) {
        queue.push(message);
    }
}

package io.jkompute.graph.std;

import io.jkompute.graph.Codelet;
import io.jkompute.graph.Message;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * GXF's Vault: keeps the messages arriving on {@code source} so code outside the graph can take them
 * ({@link #store}, {@link #storeBlocking}). With {@code max_waiting_count} waiting it stops taking from
 * {@code source} (so the queue's policy and the upstream terms apply); with {@code drop_waiting} it first drops the
 * oldest waiting messages to make room for those queued in {@code source}. GXF's {@code callback_address} (a C
 * function pointer) has no Java meaning and is not a parameter here. Messages handed out belong to the caller: {@link Message#release()}
 * each one. As in GXF, a full vault's entity stays ready while its source holds messages and keeps ticking
 * until outside code takes from it: pair it with a consumer, or use {@code drop_waiting}.
 */
public final class Vault extends Codelet {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public Vault() {
    }

    private Parameter<Receiver> source;
    private Parameter<Long> maxWaitingCount;
    private Parameter<Boolean> dropWaiting;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final ArrayDeque<Message> waiting = new ArrayDeque<>();
    private long dropped;
    private boolean closed;

    @Override
    protected void registerInterface(Registrar r) {
        source = r.handle("source", Receiver.class, "the receiver whose messages are kept");
        maxWaitingCount = r.parameter("max_waiting_count", ParameterTypes.UINT64,
                "most messages kept before the vault stops taking (or drops, with drop_waiting)");
        dropWaiting = r.parameter("drop_waiting", ParameterTypes.BOOL,
                "drop the oldest kept messages instead of leaving new ones in the source queue");
    }

    @Override
    protected void initialize() {
        if (maxWaitingCount.get() <= 0) {
            throw new IllegalArgumentException("parameter 'max_waiting_count' must be ≥ 1");
        }
    }

    @Override
    protected void tick() {
        long max = maxWaitingCount.get();
        Receiver src = source.get();
        lock.lock();
        try {
            if (dropWaiting.get()) {
                // make room for what is queued now, oldest first
                long excess = waiting.size() + src.size() - max;
                for (long i = 0; i < excess && !waiting.isEmpty(); i++) {
                    waiting.removeFirst().release();
                    dropped++;
                }
            }
            while (waiting.size() < max) {
                Message m = src.receive();
                if (m == null) {
                    break;
                }
                waiting.addLast(m.retain());
            }
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected void deinitialize() {
        lock.lock();
        try {
            closed = true;
            arrived.signalAll();
            while (!waiting.isEmpty()) {
                waiting.removeFirst().release();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Takes up to {@code max} waiting messages, oldest first, without waiting. */
    public List<Message> store(int max) {
        lock.lock();
        try {
            return take(max);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until {@code count} messages are waiting, the timeout passed or the graph closed, then takes up to
     * {@code count} (GXF's storeBlockingFor).
     */
    public List<Message> storeBlocking(int count, long timeout, TimeUnit unit) throws InterruptedException {
        long left = unit.toNanos(timeout);
        lock.lock();
        try {
            while (waiting.size() < count && left > 0 && !closed) {
                left = arrived.awaitNanos(left);
            }
            return take(count);
        } finally {
            lock.unlock();
        }
    }

    /** Messages waiting now. */
    public int waitingCount() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    /** Messages dropped because of {@code drop_waiting}. */
    public long droppedCount() {
        lock.lock();
        try {
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    private List<Message> take(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("cannot take " + max + " messages");
        }
        List<Message> out = new ArrayList<>(Math.min(max, waiting.size()));
        while (out.size() < max && !waiting.isEmpty()) {
            out.add(waiting.removeFirst());
        }
        return out;
    }
}

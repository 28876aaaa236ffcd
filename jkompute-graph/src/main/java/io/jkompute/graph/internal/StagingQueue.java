package io.jkompute.graph.internal;

import io.jkompute.graph.Message;
import io.jkompute.graph.QueuePolicy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * GXF's staging queue: a back stage writers push into and a main stage readers see, each at most
 * {@code capacity} messages. Every method locks the queue, so writers (upstream entities, several with fan-in) and
 * the reader (the owning entity) may run on different worker threads; critical sections are a few deque operations.
 */
public final class StagingQueue {
    /** Thrown when the fault policy refuses a message; the caller turns it into a named error. */
    public static final class Overflow extends RuntimeException {
        public Overflow(String message) {
            super(message, null, false, false);
        }
    }

    private final int capacity;
    private final QueuePolicy policy;
    private final ArrayDeque<Message> main;
    private final ArrayDeque<Message> back;
    private long dropped;

    public StagingQueue(int capacity, QueuePolicy policy) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
        this.policy = policy;
        this.main = new ArrayDeque<>(Math.min(capacity, 1024));
        this.back = new ArrayDeque<>(Math.min(capacity, 1024));
    }

    public int capacity() {
        return capacity;
    }

    public QueuePolicy policy() {
        return policy;
    }

    /** Pushes into the back stage; on overflow applies the policy. Dropped messages are released. */
    public void push(Message m) {
        Message drop = null;
        synchronized (this) {
            if (back.size() < capacity) {
                back.addLast(m);
                return;
            }
            switch (policy) {
                case POP -> {
                    drop = back.pollFirst();
                    back.addLast(m);
                }
                case REJECT -> drop = m;
                case FAULT -> throw new Overflow("back stage full (" + back.size() + " of capacity " + capacity + ")");
            }
            dropped++;
        }
        drop.release();
    }

    /** Moves the back stage into the main stage; overflow (main + back > capacity) applies the policy. */
    public void sync() {
        List<Message> drops = null;
        synchronized (this) {
            int excess = main.size() + back.size() - capacity;
            if (excess > 0) {
                drops = new ArrayList<>(excess);
                switch (policy) {
                    case POP -> {
                        // oldest first: main stage, then the back stage's head
                        for (int i = 0; i < excess; i++) {
                            drops.add(main.isEmpty() ? back.pollFirst() : main.pollFirst());
                        }
                    }
                    case REJECT -> {
                        for (int i = 0; i < excess; i++) {
                            drops.add(back.pollLast());
                        }
                    }
                    case FAULT -> throw new Overflow("main stage full (" + main.size() + " + " + back.size()
                            + " arriving, capacity " + capacity + ")");
                }
                dropped += excess;
            }
            while (!back.isEmpty()) {
                main.addLast(back.pollFirst());
            }
        }
        if (drops != null) {
            drops.forEach(Message::release);
        }
    }

    public synchronized Message pop() {
        return main.pollFirst();
    }

    public synchronized int size() {
        return main.size();
    }

    public synchronized int backSize() {
        return back.size();
    }

    public synchronized Message peek(int index) {
        return at(main, index);
    }

    public synchronized Message peekBack(int index) {
        return at(back, index);
    }

    /** Messages dropped by the POP or REJECT policy so far. */
    public synchronized long dropped() {
        return dropped;
    }

    /** Empties both stages, releasing everything; returns how many were left. */
    public int clear() {
        List<Message> left;
        synchronized (this) {
            left = new ArrayList<>(main);
            left.addAll(back);
            main.clear();
            back.clear();
        }
        left.forEach(Message::release);
        return left.size();
    }

    private static Message at(ArrayDeque<Message> q, int index) {
        if (index < 0 || index >= q.size()) {
            return null;
        }
        Iterator<Message> it = q.iterator();
        for (int i = 0; i < index; i++) {
            it.next();
        }
        return it.next();
    }
}

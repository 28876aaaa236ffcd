package io.jkompute.graph;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A message: a bag of named components (tensors, a {@link Timestamp}, any Java object), passed between entities
 * without copies. One message object reaches every receiver of a broadcast.
 *
 * <p>Messages are reference-counted so pooled memory returns as soon as nobody needs it. The rule: everything a
 * tick creates or receives is released when the tick ends; {@link Transmitter#publish} and every queue holding the
 * message take their own reference. To keep a message past the tick, {@link #retain()} it and {@link #release()} it
 * later. A message created outside a tick belongs to its creator. When the last reference goes, every component
 * that is {@link AutoCloseable} (pooled tensors) is closed. A message lost without release is reported and its
 * memory reclaimed by a Cleaner.
 */
public final class Message {
    private static final Logger LOG = LoggerFactory.getLogger(Message.class);
    private static final Cleaner CLEANER = Cleaner.create();

    private final State state;
    private Cleaner.Cleanable cleanable;

    private record Entry(String name, Object value) {
    }

    /** Shared with the Cleaner, so it must not reference the Message. */
    private static final class State implements Runnable {
        final AtomicInteger refs = new AtomicInteger(1);
        final List<Entry> entries = new ArrayList<>(4);
        final String origin;

        State(String origin) {
            this.origin = origin;
        }

        void closeAll() {
            RuntimeException failure = null;
            synchronized (entries) {
                for (Entry e : entries) {
                    if (e.value instanceof AutoCloseable c) {
                        try {
                            c.close();
                        } catch (Exception ex) {
                            if (failure == null) {
                                failure = new IllegalStateException("closing component '" + e.name + "' failed", ex);
                            }
                        }
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
        }

        @Override
        public void run() {
            // runs once: from release() at zero references, or from the Cleaner for a message lost unreleased
            if (refs.get() > 0) {
                LOG.warn("a message created {} was never released; reclaiming its memory", origin);
                refs.set(0);
            }
            closeAll();
        }
    }

    private Message(String origin) {
        state = new State(origin);
    }

    /** A new empty message; inside a tick it is released when the tick ends (unless retained or published). */
    public static Message create() {
        TickScope scope = TickScope.current();
        Message m = new Message(scope == null ? "outside a tick" : scope.origin());
        if (scope != null) {
            scope.own(m);
        }
        return m;
    }

    /** Adds a named component (a tensor, a Timestamp, any object); names may repeat, as in GXF. */
    public Message add(String name, Object component) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(component, "component");
        checkLive();
        synchronized (state.entries) {
            state.entries.add(new Entry(name, component));
        }
        if (component instanceof AutoCloseable && cleanable == null) {
            cleanable = CLEANER.register(this, state);
        }
        return this;
    }

    /** The first component of the type with this name, or null. */
    public <T> T get(Class<T> type, String name) {
        synchronized (state.entries) {
            List<Entry> entries = state.entries;
            for (int i = 0; i < entries.size(); i++) { // no iterator: called per message on hot paths
                Entry e = entries.get(i);
                if (type.isInstance(e.value) && e.name.equals(name)) {
                    return type.cast(e.value);
                }
            }
        }
        return null;
    }

    /** The first component of the type, or null. */
    public <T> T get(Class<T> type) {
        synchronized (state.entries) {
            List<Entry> entries = state.entries;
            for (int i = 0; i < entries.size(); i++) {
                Entry e = entries.get(i);
                if (type.isInstance(e.value)) {
                    return type.cast(e.value);
                }
            }
        }
        return null;
    }

    /** Every component of the type, in the order added. */
    public <T> List<T> findAll(Class<T> type) {
        List<T> out = new ArrayList<>();
        synchronized (state.entries) {
            for (Entry e : state.entries) {
                if (type.isInstance(e.value)) {
                    out.add(type.cast(e.value));
                }
            }
        }
        return out;
    }

    /** Visits every component with its name, in the order added (names may repeat). */
    public void forEach(BiConsumer<String, Object> action) {
        List<Entry> copy;
        synchronized (state.entries) {
            copy = List.copyOf(state.entries);
        }
        for (Entry e : copy) {
            action.accept(e.name, e.value);
        }
    }

    /** Names of all components, in order. */
    public List<String> names() {
        synchronized (state.entries) {
            return state.entries.stream().map(Entry::name).toList();
        }
    }

    /** The {@link Timestamp} named "timestamp", or null. */
    public Timestamp timestamp() {
        return get(Timestamp.class, Timestamp.NAME);
    }

    /** Sets (replaces) the "timestamp" component. */
    public void setTimestamp(Timestamp t) {
        Entry entry = new Entry(Timestamp.NAME, t);
        synchronized (state.entries) {
            // as removeIf + add (the new one goes last), without the bit set removeIf allocates per call
            List<Entry> entries = state.entries;
            int kept = 0;
            for (int i = 0; i < entries.size(); i++) {
                Entry e = entries.get(i);
                if (!(e.value instanceof Timestamp && e.name.equals(Timestamp.NAME))) {
                    entries.set(kept++, e);
                }
            }
            for (int i = entries.size() - 1; i >= kept; i--) {
                entries.remove(i);
            }
            entries.add(entry);
        }
    }

    /** Takes one more reference; pair with {@link #release()}. */
    public Message retain() {
        int r;
        do {
            r = state.refs.get();
            if (r <= 0) {
                throw new IllegalStateException("message already released (created " + state.origin + ")");
            }
        } while (!state.refs.compareAndSet(r, r + 1));
        return this;
    }

    /** Drops one reference; the last one closes pooled components. */
    public void release() {
        int r = state.refs.decrementAndGet();
        if (r == 0) {
            if (cleanable != null) {
                cleanable.clean();
            } else {
                state.closeAll();
            }
        } else if (r < 0) {
            state.refs.incrementAndGet();
            throw new IllegalStateException("message released more often than retained (created " + state.origin + ")");
        }
    }

    /** Current number of references (queues, ticks and retains holding it). */
    public int refCount() {
        return state.refs.get();
    }

    private void checkLive() {
        if (state.refs.get() <= 0) {
            throw new IllegalStateException("message already released (created " + state.origin + ")");
        }
    }

    @Override
    public String toString() {
        return "Message" + names();
    }
}

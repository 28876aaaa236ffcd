package io.jkompute.graph;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
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

    /**
     * Shared with the Cleaner, so it must not reference the Message. The components live in one array, name and
     * value side by side, and the reference count in a field of this object: a new message is three objects (the
     * message, this, the array) where a list of entries and an AtomicInteger made it five plus one per component.
     */
    private static final class State implements Runnable {
        private static final VarHandle REFS;

        static {
            try {
                REFS = MethodHandles.lookup().findVarHandle(State.class, "refs", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        volatile int refs = 1;
        /** name 0, component 0, name 1, component 1, ...; guarded by this object's monitor. */
        Object[] slots = new Object[8];
        /** Number of components; guarded by this object's monitor. */
        int size;
        final String origin;

        State(String origin) {
            this.origin = origin;
        }

        boolean casRefs(int expected, int value) {
            return REFS.compareAndSet(this, expected, value);
        }

        int addRefs(int delta) {
            return (int) REFS.getAndAdd(this, delta) + delta;
        }

        /** Appends a component; the caller holds the monitor. */
        void append(String name, Object component) {
            if (2 * size == slots.length) {
                slots = Arrays.copyOf(slots, slots.length * 2);
            }
            slots[2 * size] = name;
            slots[2 * size + 1] = component;
            size++;
        }

        void closeAll() {
            RuntimeException failure = null;
            synchronized (this) {
                for (int i = 0; i < size; i++) {
                    if (slots[2 * i + 1] instanceof AutoCloseable c) {
                        try {
                            c.close();
                        } catch (Exception ex) {
                            if (failure == null) {
                                failure = new IllegalStateException("closing component '" + slots[2 * i] + "' failed", ex);
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
            if (refs > 0) {
                LOG.warn("a message created {} was never released; reclaiming its memory", origin);
                refs = 0;
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

    /**
     * A new empty message that belongs to no tick, whatever thread makes it: for components that fill messages from
     * outside the graph (a network receiver staging what arrived), also when they do so on a scheduler thread in the
     * middle of a tick. The caller releases it or hands it on; {@code origin} names it in a leak report ("in link
     * rx/in").
     */
    public static Message createDetached(String origin) {
        return new Message(origin);
    }

    /**
     * Puts {@code replacement} where {@code old} (found by identity) is, under the same name, and closes {@code old}
     * if it is AutoCloseable: GXF's reshape of an already allocated tensor, whose old memory is given back.
     *
     * @throws IllegalArgumentException if {@code old} is not a component of this message
     */
    public Message replace(Object old, Object replacement) {
        Objects.requireNonNull(replacement, "replacement");
        checkLive();
        boolean found = false;
        synchronized (state) {
            for (int i = 0; i < state.size; i++) {
                if (state.slots[2 * i + 1] == old) {
                    state.slots[2 * i + 1] = replacement;
                    found = true;
                    break;
                }
            }
        }
        if (!found) {
            throw new IllegalArgumentException(old + " is not a component of this message");
        }
        if (replacement instanceof AutoCloseable && cleanable == null) {
            cleanable = CLEANER.register(this, state);
        }
        if (old instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing the replaced component failed", e);
            }
        }
        return this;
    }

    /** Adds a named component (a tensor, a Timestamp, any object); names may repeat, as in GXF. */
    public Message add(String name, Object component) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(component, "component");
        checkLive();
        synchronized (state) {
            state.append(name, component);
        }
        if (component instanceof AutoCloseable && cleanable == null) {
            cleanable = CLEANER.register(this, state);
        }
        return this;
    }

    /** The first component of the type with this name, or null. */
    public <T> T get(Class<T> type, String name) {
        State st = state;
        synchronized (st) {
            Object[] slots = st.slots;
            for (int i = 0; i < st.size; i++) {
                Object v = slots[2 * i + 1];
                if (type.isInstance(v) && slots[2 * i].equals(name)) {
                    return type.cast(v);
                }
            }
        }
        return null;
    }

    /** The first component of the type, or null. */
    public <T> T get(Class<T> type) {
        State st = state;
        synchronized (st) {
            Object[] slots = st.slots;
            for (int i = 0; i < st.size; i++) {
                Object v = slots[2 * i + 1];
                if (type.isInstance(v)) {
                    return type.cast(v);
                }
            }
        }
        return null;
    }

    /**
     * Where the first component of the type (with this name; any name for null) is, at or after {@code from}, in the
     * order added, or -1. With {@link #component(int)}, a way to name a component by its message and place, which
     * stays its place when it is {@link #replace replaced}: how language bindings refer to a message's tensors
     * without holding each one.
     */
    public int indexOf(Class<?> type, String name, int from) {
        State st = state;
        synchronized (st) {
            Object[] slots = st.slots;
            for (int i = Math.max(0, from); i < st.size; i++) {
                if (type.isInstance(slots[2 * i + 1]) && (name == null || slots[2 * i].equals(name))) {
                    return i;
                }
            }
        }
        return -1;
    }

    /**
     * The component at {@code index} in the order added (see {@link #indexOf}).
     *
     * @throws IndexOutOfBoundsException if the message has no component there
     */
    public Object component(int index) {
        State st = state;
        synchronized (st) {
            Objects.checkIndex(index, st.size);
            return st.slots[2 * index + 1];
        }
    }

    /** Every component of the type, in the order added. */
    public <T> List<T> findAll(Class<T> type) {
        List<T> out = new ArrayList<>();
        State st = state;
        synchronized (st) {
            for (int i = 0; i < st.size; i++) {
                Object v = st.slots[2 * i + 1];
                if (type.isInstance(v)) {
                    out.add(type.cast(v));
                }
            }
        }
        return out;
    }

    /** Visits every component with its name, in the order added (names may repeat). */
    public void forEach(BiConsumer<String, Object> action) {
        Object[] copy;
        int n;
        synchronized (state) {
            n = state.size;
            copy = Arrays.copyOf(state.slots, 2 * n);
        }
        for (int i = 0; i < n; i++) {
            action.accept((String) copy[2 * i], copy[2 * i + 1]);
        }
    }

    /** Names of all components, in order. */
    public List<String> names() {
        List<String> out = new ArrayList<>();
        synchronized (state) {
            for (int i = 0; i < state.size; i++) {
                out.add((String) state.slots[2 * i]);
            }
        }
        return List.copyOf(out);
    }

    /** The {@link Timestamp} named "timestamp", or null. */
    public Timestamp timestamp() {
        return get(Timestamp.class, Timestamp.NAME);
    }

    /** Sets (replaces) the "timestamp" component: any earlier ones go, the new one goes last. */
    public void setTimestamp(Timestamp t) {
        synchronized (state) {
            replaceTimestamps(t);
        }
    }

    /**
     * What {@link Transmitter#publish(Message)} does under one hold of the monitor rather than two: stamps pubtime,
     * keeping the acqtime of the timestamp already there (0 if none).
     */
    void stamp(long pubtime) {
        synchronized (state) {
            Timestamp old = null;
            Object[] slots = state.slots;
            for (int i = 0; i < state.size; i++) {
                if (slots[2 * i + 1] instanceof Timestamp ts && slots[2 * i].equals(Timestamp.NAME)) {
                    old = ts;
                    break;
                }
            }
            replaceTimestamps(new Timestamp(pubtime, old == null ? 0 : old.acqtime()));
        }
    }

    /** Removes every "timestamp" component and appends {@code t}; the caller holds the monitor. */
    private void replaceTimestamps(Timestamp t) {
        State st = state;
        Object[] slots = st.slots;
        int kept = 0;
        for (int i = 0; i < st.size; i++) {
            Object v = slots[2 * i + 1];
            if (!(v instanceof Timestamp && Timestamp.NAME.equals(slots[2 * i]))) {
                slots[2 * kept] = slots[2 * i];
                slots[2 * kept + 1] = v;
                kept++;
            }
        }
        for (int i = 2 * kept; i < 2 * st.size; i++) {
            slots[i] = null;
        }
        st.size = kept;
        st.append(Timestamp.NAME, t);
    }

    /** Takes one more reference; pair with {@link #release()}. */
    public Message retain() {
        State st = state;
        int r;
        do {
            r = st.refs;
            if (r <= 0) {
                throw new IllegalStateException("message already released (created " + st.origin + ")");
            }
        } while (!st.casRefs(r, r + 1));
        return this;
    }

    /** Drops one reference; the last one closes pooled components. */
    public void release() {
        int r = state.addRefs(-1);
        if (r == 0) {
            // a message without closeable components has nothing to close: add() registers the Cleaner with the
            // first one, and every add happened before the release that brought the count to zero
            if (cleanable != null) {
                cleanable.clean();
            }
        } else if (r < 0) {
            state.addRefs(1);
            throw new IllegalStateException("message released more often than retained (created " + state.origin + ")");
        }
    }

    /** Current number of references (queues, ticks and retains holding it). */
    public int refCount() {
        return state.refs;
    }

    private void checkLive() {
        if (state.refs <= 0) {
            throw new IllegalStateException("message already released (created " + state.origin + ")");
        }
    }

    @Override
    public String toString() {
        return "Message" + names();
    }
}

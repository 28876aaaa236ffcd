package io.jkompute.graph;

import java.util.ArrayList;
import java.util.List;

/** Messages a tick created or received; released when the tick ends. One per executing thread. */
final class TickScope {
    private static final ThreadLocal<TickScope> CURRENT = new ThreadLocal<>();

    private final List<Message> owned = new ArrayList<>();
    private String owner;
    private String origin;

    /** The scope of the tick running on this thread, or null between ticks. */
    static TickScope current() {
        TickScope s = CURRENT.get();
        return s != null && s.owner != null ? s : null;
    }

    /** Opens the scope of {@code owner}'s tick; {@code origin} ("in NAME") labels the messages it creates. */
    static TickScope enter(String owner, String origin) {
        TickScope s = CURRENT.get();
        if (s == null) {
            s = new TickScope();
            CURRENT.set(s);
        }
        s.owner = owner;
        s.origin = origin;
        return s;
    }

    String owner() {
        return owner;
    }

    String origin() {
        return origin;
    }

    void own(Message m) {
        owned.add(m);
    }

    /** Releases everything owned; returns the number of messages released. */
    int exit() {
        int n = owned.size();
        RuntimeException failure = null;
        for (int i = 0; i < n; i++) {
            try {
                owned.get(i).release();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        owned.clear();
        owner = null;
        if (failure != null) {
            throw failure;
        }
        return n;
    }
}

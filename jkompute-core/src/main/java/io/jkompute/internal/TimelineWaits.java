package io.jkompute.internal;

import java.util.Arrays;

/**
 * A set of points on other timelines: one entry per owner (by identity) with the highest value asked for. Sequences
 * keep three: the points their next submission waits for, the waits of the submission being made, and the
 * submissions of others that wait on their semaphore. Grows by doubling and is otherwise reused, so adding,
 * clearing and iterating allocate nothing.
 *
 * <p>Not thread-safe: its owner calls it under the lock that guards it.
 */
public final class TimelineWaits<T> {
    /** Whether an entry still matters; used to make room before growing. */
    @FunctionalInterface
    public interface Live<T> {
        boolean test(T owner, long value);
    }

    private Object[] owners = new Object[4];
    private long[] values = new long[4];
    private int size;

    public int size() {
        return size;
    }

    @SuppressWarnings("unchecked")
    public T owner(int i) {
        return (T) owners[i];
    }

    public long value(int i) {
        return values[i];
    }

    /**
     * Adds {@code owner} at {@code value}, or raises its value if it is there; returns false in that case. When full,
     * first drops the entries {@code live} rejects ({@code null}: keep all), then grows.
     */
    public boolean add(T owner, long value, Live<T> live) {
        for (int i = 0; i < size; i++) {
            if (owners[i] == owner) {
                values[i] = Math.max(values[i], value);
                return false;
            }
        }
        if (size == owners.length && live != null) {
            int k = 0;
            for (int i = 0; i < size; i++) {
                if (live.test(owner(i), values[i])) {
                    owners[k] = owners[i];
                    values[k++] = values[i];
                }
            }
            Arrays.fill(owners, k, size, null);
            size = k;
        }
        if (size == owners.length) {
            owners = Arrays.copyOf(owners, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        owners[size] = owner;
        values[size++] = value;
        return true;
    }

    /** Drops every entry (and the references to their owners). */
    public void clear() {
        Arrays.fill(owners, 0, size, null);
        size = 0;
    }
}

package io.jkompute.python.internal;

import io.jkompute.graph.Message;
import java.util.Arrays;

/**
 * Java objects that Python code holds, by number. Python sees only ints; the gxf package's wrappers give them back
 * with {@code _jkompute.release(h)} when they die (CPython's reference counting makes that prompt). A message
 * handle holds a reference to the message ({@link Message#retain()}), as a GXF entity handle does, so a message kept
 * by Python outlives the tick that received it and goes back to its pool when Python drops it.
 *
 * <p>A component of a message (a tensor) is named by its message's handle and its place in the message
 * ({@link #ofComponent}), not by a handle of its own: the message's handle, which the Python wrapper keeps alive,
 * keeps it, so nothing is given back when the wrapper dies and the wrapper needs no finalizer (a tensor read or
 * allocated every frame cost a finalizer's call into the graph each, as much again as reading it).
 */
final class Handles {
    private static Object[] objects = new Object[1024];
    private static int[] free = new int[1024];
    private static int freeCount;
    private static int next = 1;
    private static int live;

    private Handles() {
    }

    static synchronized long put(Object o) {
        if (o == null) {
            return 0;
        }
        if (o instanceof Message m) {
            m.retain();
        }
        int h;
        if (freeCount > 0) {
            h = free[--freeCount];
        } else {
            if (next == objects.length) {
                objects = Arrays.copyOf(objects, objects.length * 2);
            }
            h = next++;
        }
        objects[h] = o;
        live++;
        return h;
    }

    /** The handle of the component at {@code index} of the message whose handle is {@code message}. */
    static long ofComponent(long message, int index) {
        if (message <= 0 || message > Integer.MAX_VALUE || index < 0 || index == Integer.MAX_VALUE) {
            throw new IllegalArgumentException("no component handle for message " + message + ", place " + index);
        }
        return (long) (index + 1) << 32 | message;
    }

    static Object get(long h) {
        int place = (int) (h >>> 32);
        if (place == 0) {
            return object(h);
        }
        if (!(object(h & 0xFFFF_FFFFL) instanceof Message m)) {
            throw new IllegalArgumentException("stale or unknown jkompute handle " + h);
        }
        return m.component(place - 1);
    }

    private static synchronized Object object(long h) {
        Object o = h > 0 && h < next ? objects[(int) h] : null;
        if (o == null) {
            throw new IllegalArgumentException("stale or unknown jkompute handle " + h);
        }
        return o;
    }

    /** Gives a handle back; a component's handle holds nothing of its own. */
    static void release(long h) {
        if (h >>> 32 != 0) {
            return;
        }
        Object o;
        synchronized (Handles.class) {
            o = object(h);
            objects[(int) h] = null;
            if (freeCount == free.length) {
                free = Arrays.copyOf(free, free.length * 2);
            }
            free[freeCount++] = (int) h;
            live--;
        }
        if (o instanceof Message m) {
            m.release();
        }
    }

    /** Handles Python still holds (for tests: back to the same number once a graph's codelets are gone). */
    static synchronized int live() {
        return live;
    }
}

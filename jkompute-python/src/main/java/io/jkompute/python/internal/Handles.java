package io.jkompute.python.internal;

import io.jkompute.graph.Message;
import java.util.Arrays;

/**
 * Java objects that Python code holds, by number. Python sees only ints; the gxf package's wrappers give them back
 * with {@code _jkompute.release(h)} when they die (CPython's reference counting makes that prompt). A message
 * handle holds a reference to the message ({@link Message#retain()}), as a GXF entity handle does, so a message kept
 * by Python outlives the tick that received it and goes back to its pool when Python drops it.
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

    static synchronized Object get(long h) {
        Object o = h > 0 && h < next ? objects[(int) h] : null;
        if (o == null) {
            throw new IllegalArgumentException("stale or unknown jkompute handle " + h);
        }
        return o;
    }

    static void release(long h) {
        Object o;
        synchronized (Handles.class) {
            o = get(h);
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

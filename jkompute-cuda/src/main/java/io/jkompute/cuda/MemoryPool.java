package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jkompute.cuda.internal.Driver;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A caching allocator for the arrays that array math produces (CuPy's memory pool, in its simplest form): a freed
 * block goes back to a free list of its size class instead of {@code cuMemFree}, so a loop of array operations
 * does not pay {@code cuMemAlloc}/{@code cuMemFree} (tens of microseconds, and a device synchronisation) per op.
 * <p>
 * Reuse is safe in stream order: a block freed while a kernel on the default stream still reads it is handed to
 * the next operation, which is queued after that kernel. Arrays used on other streams must be closed only after
 * those streams are synchronised. {@link #release()} frees every cached block; an allocation that fails for lack
 * of memory releases the cache and tries once more.
 */
final class MemoryPool {
    private MemoryPool() {}

    private static final ConcurrentHashMap<Long, ArrayDeque<Long>> FREE = new ConcurrentHashMap<>();

    /** Size classes: 512-byte steps up to 1 MiB, then steps of 1/8 of the power of two below. */
    static long sizeClass(long bytes) {
        if (bytes <= 1 << 20) return (bytes + 511) & ~511L;
        long p = Long.highestOneBit(bytes - 1);
        long step = p / 8;
        return (bytes + step - 1) / step * step;
    }

    /** A block of at least {@code bytes} on the calling thread's device; closing it returns it to the pool. */
    static DeviceMemory allocate(long bytes) {
        long size = sizeClass(Math.max(bytes, 1));
        int dev = Cuda.bindCurrent();
        long key = size * 64 + dev;
        ArrayDeque<Long> q = FREE.computeIfAbsent(key, k -> new ArrayDeque<>());
        Long p;
        synchronized (q) {
            p = q.pollLast();
        }
        long address = p != null ? p : fresh(size, dev);
        return DeviceMemory.pooled(dev, address, size, () -> {
            synchronized (q) {
                q.addLast(address);
            }
        });
    }

    private static long fresh(long size, int dev) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            Cuda.bind(Cuda.context(dev));
            int rc = Driver.memAlloc(out, size);
            if (rc == 2) { // CUDA_ERROR_OUT_OF_MEMORY: give the cache back and try once more
                release();
                Cuda.bind(Cuda.context(dev));
                rc = Driver.memAlloc(out, size);
            }
            Cuda.check(rc, "cuMemAlloc(" + size + " bytes)");
            return out.get(JAVA_LONG, 0);
        }
    }

    /** Frees every cached block (blocks in use stay). */
    static void release() {
        for (var e : FREE.entrySet()) {
            int dev = (int) (e.getKey() % 64);
            ArrayDeque<Long> q = e.getValue();
            synchronized (q) {
                for (Long p; (p = q.pollLast()) != null; ) {
                    Cuda.bind(Cuda.context(dev));
                    Driver.memFree(p);
                }
            }
        }
    }

    /** Bytes held in free lists. */
    static long cachedBytes() {
        long total = 0;
        for (var e : FREE.entrySet()) {
            synchronized (e.getValue()) {
                total += e.getValue().size() * (e.getKey() / 64);
            }
        }
        return total;
    }
}

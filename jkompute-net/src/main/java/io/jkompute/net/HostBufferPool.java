package io.jkompute.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A receiver's pool of host memory for arriving messages. A fresh buffer per message costs more than the copy into
 * it: a 64 MiB allocation is zero-filled and page-faulted (16,384 pages), and closing its shared arena stops every
 * thread for a handshake; at memory speed that was most of the time per message. Small messages fare no better in
 * GC-managed memory ({@code Arena.ofAuto()}): each one registers a cleaner and counts against the JVM's direct memory
 * limit until a collection finds it, and a stream of them that outruns the collector makes the allocating thread run
 * {@code System.gc()} and wait. A message's buffer comes back here when the last tensor referring to it is closed
 * ({@link WireFormat#decode}, which closes the message's "arena": a {@link Buffer}), and serves a later message.
 *
 * <p>Messages of up to {@value #SMALL_MAX} bytes take a buffer of their power-of-two size class (at least
 * {@value #SMALL_MIN} bytes), kept per class; larger ones take a free buffer of up to twice their size, rounded to
 * MiB. At most {@code keep} buffers of each small class, and {@code keep} large buffers of {@code keepBytes} bytes in
 * all, are kept free; others are freed when given back, and all when the pool closes (buffers still held by messages
 * then are freed when those are released).
 */
final class HostBufferPool implements AutoCloseable {
    private static final long ROUND = 1L << 20;
    /** The smallest buffer (bytes). */
    static final int SMALL_MIN = 1 << 10;
    /** The largest message that takes a buffer of its size class (bytes). */
    static final int SMALL_MAX = 1 << 18;
    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(SMALL_MIN);
    private final int keep;
    private final long keepBytes;
    private final ArrayDeque<Buffer> free = new ArrayDeque<>();
    /** Free small buffers by size class ({@link #SMALL_MIN} × 2^i bytes). */
    private final List<ArrayDeque<Buffer>> small = new ArrayList<>();
    private long freeBytes;
    private boolean closed;

    HostBufferPool(int keep, long keepBytes) {
        this.keep = keep;
        this.keepBytes = keepBytes;
        for (int size = SMALL_MIN; size <= SMALL_MAX; size <<= 1) {
            small.add(new ArrayDeque<>());
        }
    }

    /** The size class of a small message of {@code bytes} bytes. */
    private static int sizeClass(long bytes) {
        return bytes <= SMALL_MIN ? 0 : 64 - Long.numberOfLeadingZeros(bytes - 1) - MIN_SHIFT;
    }

    /** One pooled buffer: closing it (as a message's arena) gives it back to the pool. */
    final class Buffer implements Arena {
        private final Arena arena = Arena.ofShared();
        private final MemorySegment segment;
        private boolean out;

        private Buffer(long bytes) {
            try {
                segment = arena.allocate(bytes, WireFormat.ALIGN);
            } catch (RuntimeException | OutOfMemoryError e) {
                arena.close();
                throw e;
            }
        }

        /** The first {@code bytes} bytes of the buffer (not cleared: the caller writes all of them). */
        MemorySegment slice(long bytes) {
            return segment.asSlice(0, bytes);
        }

        @Override
        public MemorySegment allocate(long byteSize, long byteAlignment) {
            throw new UnsupportedOperationException("a pooled message buffer allocates nothing more");
        }

        @Override
        public MemorySegment.Scope scope() {
            return arena.scope();
        }

        @Override
        public void close() {
            giveBack(this);
        }
    }

    /**
     * A buffer of at least {@code bytes} bytes: a free one of its size class (small), or of up to twice its size
     * (large), else a new one.
     */
    Buffer take(long bytes) {
        if (bytes <= SMALL_MAX) {
            int c = sizeClass(bytes);
            synchronized (this) {
                Buffer b = small.get(c).pollLast();
                if (b != null) {
                    b.out = true;
                    return b;
                }
            }
            Buffer b = new Buffer((long) SMALL_MIN << c);
            b.out = true;
            return b;
        }
        synchronized (this) {
            Buffer best = null;
            for (Buffer b : free) {
                long size = b.segment.byteSize();
                if (size >= bytes && size / 2 <= bytes && (best == null || size < best.segment.byteSize())) {
                    best = b;
                }
            }
            if (best != null) {
                free.remove(best);
                freeBytes -= best.segment.byteSize();
                best.out = true;
                return best;
            }
        }
        Buffer b = new Buffer((bytes + ROUND - 1) / ROUND * ROUND);
        b.out = true;
        return b;
    }

    private void giveBack(Buffer b) {
        synchronized (this) {
            if (!b.out) {
                return; // closed twice
            }
            b.out = false;
            long size = b.segment.byteSize();
            if (size <= SMALL_MAX) {
                ArrayDeque<Buffer> same = small.get(sizeClass(size));
                if (!closed && same.size() < keep) {
                    same.addLast(b); // taken last-in first-out: the buffer most likely still in a cache
                    return;
                }
            } else if (!closed && size <= keepBytes) {
                // make room by freeing the oldest free buffers
                while (!free.isEmpty() && (free.size() >= keep || freeBytes + size > keepBytes)) {
                    Buffer old = free.removeFirst();
                    freeBytes -= old.segment.byteSize();
                    old.arena.close();
                }
                free.addLast(b);
                freeBytes += size;
                return;
            }
        }
        b.arena.close();
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (Iterator<Buffer> i = free.iterator(); i.hasNext(); ) {
            i.next().arena.close();
            i.remove();
        }
        freeBytes = 0;
        for (ArrayDeque<Buffer> same : small) {
            for (Buffer b : same) {
                b.arena.close();
            }
            same.clear();
        }
    }
}

package io.jkompute.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * A receiver's pool of host memory for large arriving messages. A fresh buffer per message costs more than the copy
 * into it: a 64 MiB allocation is zero-filled and page-faulted (16,384 pages), and closing its shared arena stops
 * every thread for a handshake; at memory speed that was most of the time per message. A message's buffer comes back
 * here when the last tensor referring to it is closed ({@link WireFormat#decode}, which closes the message's
 * "arena": a {@link Buffer}), and serves a later message of up to its size.
 *
 * <p>At most {@code keep} buffers and {@code keepBytes} bytes are kept free; others are freed when given back, and
 * all when the pool closes (buffers still held by messages then are freed when those are released).
 */
final class HostBufferPool implements AutoCloseable {
    private static final long ROUND = 1L << 20;
    private final int keep;
    private final long keepBytes;
    private final ArrayDeque<Buffer> free = new ArrayDeque<>();
    private long freeBytes;
    private boolean closed;

    HostBufferPool(int keep, long keepBytes) {
        this.keep = keep;
        this.keepBytes = keepBytes;
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

    /** A buffer of at least {@code bytes} bytes (a free one up to twice that size, else a new one). */
    Buffer take(long bytes) {
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
            if (!closed && size <= keepBytes) {
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
    }
}

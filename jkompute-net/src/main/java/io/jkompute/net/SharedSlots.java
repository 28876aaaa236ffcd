package io.jkompute.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The sending side of a same-host link's shared memory: a set of files in this process's private folder
 * ({@code jkompute-aeron-<pid>}, mode 0700, see {@link AeronTransport}), each mapped once and grown when a larger
 * message comes. A message is encoded straight into a free slot (the one copy of its payload on the whole path);
 * the receiver decodes it where it lies and hands the slot back (a RELEASED frame) when the last tensor referring
 * to it is closed, or at once when it copied the message out instead. A slot is written only while it is free, so
 * the sender never changes bytes the receiving graph still reads. Files are mode 0600 and removed on close (and
 * with the folder on every exit path).
 */
final class SharedSlots implements AutoCloseable {
    private static final long ROUND = 1L << 20;

    /** At most this many slots per link (a bit each in {@link #free}). */
    static final int MAX = 64;

    private final Path[] files;
    private final Arena[] arenas;
    private final MemorySegment[] maps;
    /** Bit i set: slot i may be written (the sending thread takes a bit, the link's poller gives it back). */
    private final AtomicLong free;
    /** The message each taken slot holds, to check the receiver's RELEASED frames against. */
    private final AtomicLongArray holds;

    SharedSlots(Path folder, long linkId, int slots) {
        if (slots < 1 || slots > MAX) {
            throw new IllegalArgumentException("1 to " + MAX + " shared slots, got " + slots);
        }
        files = new Path[slots];
        arenas = new Arena[slots];
        maps = new MemorySegment[slots];
        for (int i = 0; i < slots; i++) {
            files[i] = folder.resolve(fileName(linkId, i));
        }
        free = new AtomicLong(slots == MAX ? -1L : (1L << slots) - 1);
        holds = new AtomicLongArray(slots);
    }

    /** Takes a free slot for message {@code seq}: its index, or -1 when every slot is still held by the receiver. */
    int take(long seq) {
        return take(seq, files.length);
    }

    /** Takes a free slot under {@code limit} for message {@code seq}, or -1 when all of those are held. */
    int take(long seq, int limit) {
        long usable = limit >= MAX ? -1L : (1L << limit) - 1;
        while (true) {
            long f = free.get() & usable;
            if (f == 0) {
                return -1;
            }
            int slot = Long.numberOfTrailingZeros(f);
            long all = free.get();
            if ((all & (1L << slot)) != 0 && free.compareAndSet(all, all & ~(1L << slot))) {
                holds.set(slot, seq);
                return slot;
            }
        }
    }

    /** Whether a slot under {@code limit} is free (a waiting sender may go on). */
    boolean anyFree(int limit) {
        return (free.get() & (limit >= MAX ? -1L : (1L << limit) - 1)) != 0;
    }

    /**
     * The receiver is done with message {@code seq} in {@code slot}; false when that slot is free already or holds
     * another message (a protocol violation).
     */
    boolean release(long slot, long seq) {
        if (slot < 0 || slot >= files.length) {
            return false;
        }
        int i = (int) slot;
        while (true) {
            long f = free.get();
            if ((f & (1L << i)) != 0 || holds.get(i) != seq) {
                return false;
            }
            if (free.compareAndSet(f, f | (1L << i))) {
                return true;
            }
        }
    }

    static String fileName(long linkId, int slot) {
        return "link-" + Long.toHexString(linkId) + "-" + slot;
    }

    int slots() {
        return files.length;
    }

    Path file(int slot) {
        return files[slot];
    }

    /** The slot's mapping, at least {@code bytes} long (the file is made or grown, and mapped again, if needed). */
    MemorySegment slot(int slot, long bytes) {
        MemorySegment m = maps[slot];
        if (m != null && m.byteSize() >= bytes) {
            return m;
        }
        long size = (bytes + ROUND - 1) / ROUND * ROUND;
        if (arenas[slot] != null) {
            arenas[slot].close();
            arenas[slot] = null;
            maps[slot] = null;
        }
        Path f = files[slot];
        try {
            if (!Files.exists(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Files.createFile(f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                } catch (UnsupportedOperationException noPosix) {
                    Files.createFile(f);
                }
            }
            Arena a = Arena.ofShared();
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                if (ch.size() < size) {
                    ch.write(java.nio.ByteBuffer.allocate(1), size - 1); // grows the file (sparse until written)
                }
                maps[slot] = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, a);
            } catch (IOException | RuntimeException e) {
                a.close();
                throw e;
            }
            arenas[slot] = a;
            return maps[slot];
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the shared slot " + f + ": " + e, e);
        }
    }

    /** Writes an encoded message into the slot: its parts, and zeros in the gaps between them (the padding). */
    void write(int slot, WireFormat.Encoded e) {
        MemorySegment m = slot(slot, e.messageBytes());
        long at = 0;
        List<WireFormat.Part> parts = e.parts();
        for (WireFormat.Part p : parts) {
            if (p.offset() > at) {
                m.asSlice(at, p.offset() - at).fill((byte) 0);
            }
            long n = p.bytes().byteSize();
            if (n > 0) {
                SharedCopy.copy(p.bytes(), 0, m, p.offset(), n);
            }
            at = Math.max(at, p.offset() + n);
        }
        if (at < e.messageBytes()) {
            m.asSlice(at, e.messageBytes() - at).fill((byte) 0);
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < files.length; i++) {
            if (arenas[i] != null) {
                arenas[i].close();
                arenas[i] = null;
                maps[i] = null;
            }
            try {
                Files.deleteIfExists(files[i]);
            } catch (IOException e) {
                // removed with the private folder at exit
            }
        }
    }
}

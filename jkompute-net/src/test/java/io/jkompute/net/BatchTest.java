package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.DataType;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * The BATCH frame's layout: messages packed in order come out exactly, a message that would overflow the frame's
 * room does not go in, and every malformed layout is refused whole with the one format exception before anything
 * is taken from it.
 */
class BatchTest {
    /** The room of a batch on a default Aeron channel (MTU 1408: 1376 bytes of payload, less the frame header). */
    static final int ROOM = 1376 - Frames.HEADER;

    static MemorySegment encoded(long n, int payload, Arena arena) {
        MemorySegment p = arena.allocate(Math.max(payload, 8), 64).asSlice(0, payload);
        for (int i = 0; i < payload; i++) {
            p.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + n));
        }
        Message m = Message.create().add("n", HostTensor.wrap(arena.allocate(8, 8).fill((byte) n), DataType.UINT8, 8))
                .add("payload", HostTensor.wrap(p, DataType.UINT8, payload));
        return WireFormat.encode(m, arena).toSegment(arena);
    }

    /** Packs messages 1, 2, … of the given payload sizes into batches as the transmitter does; returns the frames. */
    static List<UnsafeBuffer> pack(int[] payloads, Arena arena) {
        List<UnsafeBuffer> frames = new ArrayList<>();
        UnsafeBuffer f = new UnsafeBuffer(new byte[Frames.HEADER + ROOM]);
        int used = 0;
        int count = 0;
        long first = 1;
        for (int i = 0; i < payloads.length; i++) {
            MemorySegment m = encoded(i + 1, payloads[i], arena);
            int n = (int) m.byteSize();
            assertTrue(Batch.fits(0, n, ROOM), "test message " + (i + 1) + " fits an empty batch");
            if (!Batch.fits(used, n, ROOM)) {
                frames.add(close(f, first, count, used));
                f = new UnsafeBuffer(new byte[Frames.HEADER + ROOM]);
                first += count;
                used = 0;
                count = 0;
            }
            used = Batch.append(f, used, new UnsafeBuffer(m.address(), n), 0, n);
            count++;
        }
        frames.add(close(f, first, count, used));
        return frames;
    }

    static UnsafeBuffer close(UnsafeBuffer f, long first, int count, int used) {
        Frames.header(f, Frames.BATCH, 0, first, count, 0, 1);
        return new UnsafeBuffer(f.byteArray(), 0, Frames.HEADER + used);
    }

    @Test
    void messagesComeOutExactlyAndInOrderAcrossBatchBoundaries() {
        int[] payloads = {0, 9, 64, 700, 64, 64, 1000, 300, 64, 64, 64, 64, 64, 64, 64, 64, 900, 10};
        try (Arena arena = Arena.ofConfined()) {
            List<UnsafeBuffer> frames = pack(payloads, arena);
            assertTrue(frames.size() > 3 && frames.size() < payloads.length, frames.size() + " frames");
            int next = 0;
            for (UnsafeBuffer f : frames) {
                assertEquals(next + 1, Frames.a(f, 0), "a batch starts with the message after the last one");
                int count = Batch.check(f, 0, f.capacity(), 1L << 20);
                int pos = Frames.HEADER;
                for (int i = 0; i < count; i++, next++) {
                    int n = f.getInt(pos, Frames.LE);
                    MemorySegment copy = arena.allocate(n, 64);
                    f.getBytes(pos + Batch.ENTRY, copy.asByteBuffer(), n);
                    assertEquals(-1, copy.mismatch(encoded(next + 1, payloads[next], arena)),
                            "message " + (next + 1) + " byte for byte");
                    Message m = WireFormat.decode(copy, null);
                    assertEquals((byte) (next + 1), m.get(HostTensor.class, "n").data().get(ValueLayout.JAVA_BYTE, 7));
                    assertEquals(payloads[next], m.get(HostTensor.class, "payload").data().byteSize());
                    pos += Batch.ENTRY + n;
                }
                assertEquals(f.capacity(), pos);
            }
            assertEquals(payloads.length, next);
        }
    }

    @Test
    void aMessageThatWouldOverflowTheFrameWaitsForTheNextBatch() {
        assertTrue(Batch.fits(0, ROOM - Batch.ENTRY, ROOM), "a message that fills the room exactly");
        assertFalse(Batch.fits(0, ROOM - Batch.ENTRY + 1, ROOM), "one byte more goes out on its own");
        assertTrue(Batch.fits(100, ROOM - Batch.ENTRY - 100, ROOM));
        assertFalse(Batch.fits(100, ROOM - Batch.ENTRY - 99, ROOM));
        // 700 + 1000 payload bytes cannot share a frame: two batches of one
        try (Arena arena = Arena.ofConfined()) {
            List<UnsafeBuffer> frames = pack(new int[] {700, 1000}, arena);
            assertEquals(2, frames.size());
            assertEquals(1, Batch.check(frames.get(0), 0, frames.get(0).capacity(), 1 << 20));
            assertEquals(2, Frames.a(frames.get(1), 0));
            for (UnsafeBuffer f : frames) {
                assertTrue(f.capacity() <= Frames.HEADER + ROOM);
            }
        }
    }

    @Test
    void malformedBatchesAreRefusedWhole() {
        try (Arena arena = Arena.ofConfined()) {
            UnsafeBuffer good = pack(new int[] {64, 64, 64}, arena).getFirst();
            int len = good.capacity();
            assertEquals(3, Batch.check(good, 0, len, 1 << 20));
            // more messages declared than present, fewer, none, absurdly many
            for (long count : new long[] {4, 2, 0, -1, 1L << 40}) {
                UnsafeBuffer f = copy(good);
                f.putLong(16, count, Frames.LE);
                assertThrows(WireFormat.FormatException.class, () -> Batch.check(f, 0, len, 1 << 20), "count " + count);
            }
            // a length running past the frame, one under a message header, one over the receiver's limit
            int first = good.getInt(Frames.HEADER, Frames.LE);
            for (int n : new int[] {len, first + 1, WireFormat.HEADER_FIXED - 1, -1, Integer.MAX_VALUE}) {
                UnsafeBuffer f = copy(good);
                f.putInt(Frames.HEADER, n, Frames.LE);
                assertThrows(WireFormat.FormatException.class, () -> Batch.check(f, 0, len, 1 << 20), "length " + n);
            }
            assertThrows(WireFormat.FormatException.class, () -> Batch.check(good, 0, len, first - 1),
                    "over max_message_bytes");
            // truncated: the last message cut short, trailing bytes after the last
            assertThrows(WireFormat.FormatException.class, () -> Batch.check(good, 0, len - 1, 1 << 20));
            UnsafeBuffer longer = new UnsafeBuffer(new byte[len + 5]);
            longer.putBytes(0, good, 0, len);
            assertThrows(WireFormat.FormatException.class, () -> Batch.check(longer, 0, len + 5, 1 << 20));
            // a header alone
            assertThrows(WireFormat.FormatException.class, () -> Batch.check(good, 0, Frames.HEADER, 1 << 20));
        }
    }

    static UnsafeBuffer copy(UnsafeBuffer b) {
        UnsafeBuffer c = new UnsafeBuffer(new byte[b.capacity()]);
        c.putBytes(0, b, 0, b.capacity());
        return c;
    }
}

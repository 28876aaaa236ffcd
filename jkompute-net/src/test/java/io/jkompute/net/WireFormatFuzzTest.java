package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jkompute.DataType;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Timestamp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * 100,000 seeded mutations of valid messages through {@link WireFormat#decode}: each either fails with
 * {@link WireFormat.FormatException} (the only exception type allowed) or decodes into tensors that fit their
 * payload exactly (no negative strides, no overflowing shapes, bytes inside the message, the bytes found where the
 * header says); unmutated messages decode to exactly what was sent.
 */
class WireFormatFuzzTest {
    static final int FRAMES = 100_000;

    @Test
    void hundredThousandMutatedFramesFailCleanlyOrDecodeIntoTensorsThatFit() {
        SplittableRandom random = new SplittableRandom(0x5EED_1234L);
        try (Arena arena = Arena.ofConfined()) {
            List<byte[]> seeds = new ArrayList<>();
            for (Message m : messages(arena)) {
                seeds.add(WireFormat.encode(m, arena).toSegment(arena).toArray(ValueLayout.JAVA_BYTE));
            }
            int decoded = 0;
            int refused = 0;
            for (int i = 0; i < FRAMES; i++) {
                byte[] seed = seeds.get(random.nextInt(seeds.size()));
                byte[] bytes = mutate(seed, random, i % 50 == 0 ? 0 : 1 + random.nextInt(4));
                MemorySegment in = Arena.ofAuto().allocate(Math.max(1, bytes.length), 64).asSlice(0, bytes.length);
                MemorySegment.copy(bytes, 0, in, ValueLayout.JAVA_BYTE, 0, bytes.length);
                Message m;
                try {
                    m = WireFormat.decode(in, null);
                } catch (WireFormat.FormatException e) {
                    refused++;
                    continue;
                } catch (RuntimeException | Error e) {
                    fail("frame " + i + " failed with " + e + " instead of a FormatException");
                    return;
                }
                decoded++;
                try {
                    checkFits(m, in, i);
                    if (bytes == seed || java.util.Arrays.equals(bytes, seed)) {
                        assertArrayEquals(seed, reencode(m, arena),
                                "frame " + i + ": an unmutated message decodes to what was sent");
                    }
                } finally {
                    m.release();
                }
            }
            System.out.printf("fuzz: %d frames, %d decoded into fitting tensors, %d refused with FormatException%n",
                    FRAMES, decoded, refused);
            assertEquals(FRAMES, decoded + refused);
            assertTrue(decoded >= FRAMES / 50, "unmutated and harmlessly mutated frames decode: " + decoded);
        }
    }

    private static byte[] reencode(Message m, Arena arena) {
        return WireFormat.encode(m, arena).toSegment(arena).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Every tensor lies inside the message, spans exactly its payload, and holds the bytes found there. */
    private static void checkFits(Message m, MemorySegment in, int i) {
        m.forEach((name, v) -> {
            if (v instanceof HostTensor t) {
                long[] shape = t.shape();
                long[] strides = t.strides();
                long count = 1;
                long extent = 0;
                for (int d = 0; d < shape.length; d++) {
                    assertTrue(shape[d] >= 0 && strides[d] >= 0, "frame " + i + ": negative shape or stride");
                    count = Math.multiplyExact(count, shape[d]);
                    if (shape[d] > 0) {
                        extent = Math.addExact(extent, Math.multiplyExact(shape[d] - 1, strides[d]));
                    }
                }
                int size = t.dataType().byteSize();
                extent = count == 0 ? 0 : extent + size;
                MemorySegment data = t.data();
                assertTrue(data.byteSize() >= extent, "frame " + i + ": tensor '" + name + "' spans " + extent
                        + " bytes of a " + data.byteSize() + "-byte payload");
                assertTrue(count * size <= Math.max(extent, 0) || count == 0, "frame " + i + ": overlapping elements");
                if (extent > 0) {
                    long off = data.address() - in.address();
                    assertTrue(off >= 0 && off + extent <= in.byteSize(), "frame " + i + ": payload outside");
                    assertArrayEquals(in.asSlice(off, extent).toArray(ValueLayout.JAVA_BYTE),
                            data.asSlice(0, extent).toArray(ValueLayout.JAVA_BYTE), "frame " + i);
                }
            } else if (v instanceof GraphTensor) {
                fail("frame " + i + ": no device factory, yet a device tensor");
            }
        });
    }

    private static byte[] mutate(byte[] seed, SplittableRandom r, int edits) {
        if (edits == 0) {
            return seed;
        }
        byte[] b = seed.clone();
        for (int e = 0; e < edits; e++) {
            int what = r.nextInt(10);
            if (what == 0 && b.length > 1) {
                b = java.util.Arrays.copyOf(b, r.nextInt(b.length)); // truncated
            } else if (what == 1) {
                b = java.util.Arrays.copyOf(b, b.length + 1 + r.nextInt(128)); // extended
            } else if (b.length > 0) {
                // mostly the header, where the sizes, shapes and strides are
                int at = r.nextInt(4) > 0 ? r.nextInt(Math.min(b.length, 200)) : r.nextInt(b.length);
                switch (r.nextInt(4)) {
                    case 0 -> b[at] = (byte) r.nextInt(256);
                    case 1 -> b[at] ^= (byte) (1 << r.nextInt(8));
                    case 2 -> b[at] = (byte) (r.nextBoolean() ? 0xFF : 0x80);
                    default -> {
                        int at8 = Math.max(0, Math.min(b.length - 8, at & ~7));
                        long v = switch (r.nextInt(5)) {
                            case 0 -> -1L;
                            case 1 -> Long.MAX_VALUE;
                            case 2 -> 1L << 40;
                            case 3 -> r.nextLong(1 << 20);
                            default -> Long.MIN_VALUE;
                        };
                        for (int k = 0; k < 8 && at8 + k < b.length; k++) {
                            b[at8 + k] = (byte) (v >>> (8 * k));
                        }
                    }
                }
            }
        }
        return b;
    }

    private static List<Message> messages(Arena arena) {
        List<Message> out = new ArrayList<>();
        Message a = Message.create();
        a.add(Timestamp.NAME, new Timestamp(1, 2));
        a.add("s", "hello");
        out.add(a);
        for (DataType t : new DataType[] {DataType.FLOAT32, DataType.UINT8, DataType.INT64, DataType.FLOAT16}) {
            Message m = Message.create();
            MemorySegment s = arena.allocate(24L * t.byteSize(), 8);
            for (long k = 0; k < s.byteSize(); k++) {
                s.set(ValueLayout.JAVA_BYTE, k, (byte) (k * 13 + 1));
            }
            m.add("dense", HostTensor.wrap(s, t, 2, 3, 4));
            // a transposed view of the same block
            m.add("view", HostTensor.wrap(s, t, new long[] {4, 6}, new long[] {t.byteSize(), 4L * t.byteSize()}));
            m.add("empty", HostTensor.wrap(s.asSlice(0, 0), t, 0, 5));
            m.add(Timestamp.NAME, new Timestamp(7, 8));
            out.add(m);
        }
        return out;
    }
}

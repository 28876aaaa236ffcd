package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.DataType;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Timestamp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireFormatTest {
    private static MemorySegment roundTrip(Message m, Arena arena) {
        return WireFormat.encode(m, arena).toSegment(arena);
    }

    @Test
    void everyDtypeShapeStridesTimestampAndStringRoundTrip() {
        try (Arena arena = Arena.ofConfined()) {
            Message m = Message.create();
            m.add(Timestamp.NAME, new Timestamp(123456789L, -5L));
            for (DataType t : DataType.values()) {
                if (t == DataType.CUSTOM) {
                    continue;
                }
                MemorySegment s = arena.allocate(6L * t.byteSize(), 8);
                for (long i = 0; i < s.byteSize(); i++) {
                    s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + t.ordinal()));
                }
                m.add(t.name(), HostTensor.wrap(s, t, 2, 3));
            }
            // a transposed view: shape [3, 2] over a dense [2, 3] float32 block, strides kept
            MemorySegment base = arena.allocate(24, 8);
            for (int i = 0; i < 6; i++) {
                base.setAtIndex(ValueLayout.JAVA_FLOAT, i, i + 0.5f);
            }
            m.add("transposed", HostTensor.wrap(base, DataType.FLOAT32, new long[] {3, 2}, new long[] {4, 12}));
            m.add("empty", HostTensor.wrap(arena.allocate(8), DataType.FLOAT64, 0, 4));
            m.add("label", "héllo wire");

            Message back = WireFormat.decode(roundTrip(m, arena), null);
            assertEquals(m.names(), back.names());
            assertEquals(new Timestamp(123456789L, -5L), back.timestamp());
            for (DataType t : DataType.values()) {
                if (t == DataType.CUSTOM) {
                    continue;
                }
                HostTensor a = m.get(HostTensor.class, t.name());
                HostTensor b = back.get(HostTensor.class, t.name());
                assertEquals(t, b.dataType());
                assertArrayEquals(a.shape(), b.shape());
                assertArrayEquals(a.strides(), b.strides());
                assertArrayEquals(a.data().toArray(ValueLayout.JAVA_BYTE), b.data().toArray(ValueLayout.JAVA_BYTE));
                assertEquals(0, b.data().address() % 64, "payloads are 64-byte aligned");
            }
            HostTensor tr = back.get(HostTensor.class, "transposed");
            assertArrayEquals(new long[] {3, 2}, tr.shape());
            assertArrayEquals(new long[] {4, 12}, tr.strides());
            assertArrayEquals(m.get(HostTensor.class, "transposed").toFloatArray(), tr.toFloatArray());
            assertArrayEquals(new long[] {0, 4}, back.get(HostTensor.class, "empty").shape());
            assertEquals("héllo wire", back.get(String.class, "label"));
            m.release();
            back.release();
        }
    }

    @Test
    void headerIsTheDocumentedLayout() {
        try (Arena arena = Arena.ofConfined()) {
            Message m = Message.create().add("t", new Timestamp(7, 9));
            MemorySegment s = roundTrip(m, arena);
            var le = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
            assertEquals(0x4D4E4B4A, s.get(le, 0));
            assertEquals("JKNM", new String(s.asSlice(0, 4).toArray(ValueLayout.JAVA_BYTE)));
            assertEquals(1, s.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 4));
            assertEquals(1, s.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 6));
            // 24-byte fixed header + (kind, 0, u16 1, "t") + 2 × i64
            assertEquals(24 + 5 + 16, s.byteSize());
            m.release();
        }
    }

    @Test
    void otherVersionBadMagicAndTruncationAreClearErrors() {
        try (Arena arena = Arena.ofConfined()) {
            Message m = Message.create().add("x", HostTensor.of(new float[] {1, 2, 3}));
            MemorySegment s = roundTrip(m, arena);
            MemorySegment v2 = arena.allocate(s.byteSize(), 8);
            MemorySegment.copy(s, 0, v2, 0, s.byteSize());
            v2.set(ValueLayout.JAVA_BYTE, 4, (byte) 2);
            var e = assertThrows(WireFormat.FormatException.class, () -> WireFormat.decode(v2, null));
            assertTrue(e.getMessage().contains("version 2") && e.getMessage().contains("version 1"), e.getMessage());

            MemorySegment bad = arena.allocate(s.byteSize(), 8);
            MemorySegment.copy(s, 0, bad, 0, s.byteSize());
            bad.set(ValueLayout.JAVA_BYTE, 0, (byte) 'X');
            e = assertThrows(WireFormat.FormatException.class, () -> WireFormat.decode(bad, null));
            assertTrue(e.getMessage().contains("magic"), e.getMessage());

            e = assertThrows(WireFormat.FormatException.class, () -> WireFormat.decode(s.asSlice(0, 30), null));
            assertTrue(e.getMessage().contains("bytes"), e.getMessage());
            m.release();
        }
    }

    @Test
    void componentsThatCannotCrossAreRefusedByName() {
        try (Arena arena = Arena.ofConfined()) {
            Message m = Message.create().add("handle", List.of(1, 2));
            var e = assertThrows(IllegalArgumentException.class, () -> WireFormat.encode(m, arena));
            assertTrue(e.getMessage().contains("'handle'"), e.getMessage());
            m.release();
        }
    }
}

package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.DataType;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.IpcRegion;
import io.jkompute.graph.Message;
import io.jkompute.graph.StorageType;
import io.jkompute.graph.Timestamp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Device tensors by reference (wire kind 5): what the sender writes instead of the bytes, and every check the
 * receiver makes before it opens a handle or allocates. The "device" here is a host segment standing for the
 * sender's buffer, so contents can be compared exactly without a GPU (the GPU path is in CudaIpcLinkGpuTest).
 */
class DeviceReferenceWireTest {
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A device tensor whose bytes live at {@code offset} of {@code buffer}; reading it on the host is an error. */
    record RefTensor(DataType dataType, long[] shape, byte[] handle, long offset) implements GraphTensor {
        @Override
        public long[] strides() {
            return GraphTensor.denseStrides(shape, dataType.byteSize());
        }

        @Override
        public StorageType storage() {
            return StorageType.DEVICE;
        }

        @Override
        public MemorySegment toHost(Arena arena) {
            throw new AssertionError("a tensor sent by reference must not be read back to the host");
        }

        @Override
        public Optional<IpcRegion> ipcRegion() {
            return Optional.of(new IpcRegion(new byte[16], handle, offset));
        }

        @Override
        public void close() {
        }
    }

    /** The opens the receiver's factory saw, and the "sender's buffer" it copies from. */
    static final class Opens implements WireFormat.IpcFactory {
        final List<Object[]> calls = new ArrayList<>();
        final MemorySegment buffer;

        Opens(MemorySegment buffer) {
            this.buffer = buffer;
        }

        @Override
        public GraphTensor open(DataType type, long[] shape, byte[] handle, long offset, long bytes) {
            calls.add(new Object[] {type, shape, handle, offset, bytes});
            if (offset > buffer.byteSize() - bytes) {
                throw new IllegalArgumentException("range outside the buffer");
            }
            MemorySegment copy = Arena.ofAuto().allocate(bytes, 64);
            MemorySegment.copy(buffer, offset, copy, 0, bytes);
            return HostTensor.wrap(copy, type, shape);
        }
    }

    private static final byte[] HANDLE = {1, 2, 3, 4, 5, 6, 7, 8, 9};

    /** One component "t" by reference: float32 [4, 256] at byte 4096 of a handle of 9 bytes. */
    private static MemorySegment oneReference(Arena arena) {
        Message m = Message.create();
        m.add("t", new RefTensor(DataType.FLOAT32, new long[] {4, 256}, HANDLE, 4096));
        try {
            return WireFormat.encode(m, arena, t -> t.ipcRegion().orElse(null)).toSegment(arena);
        } finally {
            m.release();
        }
    }

    // offsets in oneReference's message: header 24, component 4 + name 1, tensor 4, shape 16, strides 16
    private static final long SHAPE = 24 + 5 + 4;
    private static final long STRIDES = SHAPE + 16;
    private static final long OFFSET = STRIDES + 16;
    private static final long BYTES = OFFSET + 8;
    private static final long HANDLE_LEN = BYTES + 8;

    @Test
    void aReferenceCarriesHandleOffsetAndSizeInsteadOfTheBytes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment device = arena.allocate(64 * 1024, 64);
            for (long i = 0; i < device.byteSize(); i++) {
                device.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            }
            MemorySegment host = arena.allocate(48, 8);
            for (int i = 0; i < 48; i++) {
                host.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            Message m = Message.create();
            m.add(Timestamp.NAME, new Timestamp(7, 8));
            m.add("t", new RefTensor(DataType.FLOAT32, new long[] {4, 256}, HANDLE, 4096));
            m.add("h", HostTensor.wrap(host, DataType.UINT8, 6, 8));
            int[] exported = {0};
            WireFormat.Encoded e = WireFormat.encode(m, arena, t -> {
                exported[0]++;
                return t.ipcRegion().orElse(null);
            });
            assertEquals(1, exported[0], "only the device tensor is offered for export");
            MemorySegment wire = e.toSegment(arena);
            // the 4 KiB of the tensor are not in the message: header (with the 9-byte handle) and the host tensor
            assertTrue(wire.byteSize() < 256, "message of " + wire.byteSize() + " bytes");

            Opens opens = new Opens(device);
            Message back = WireFormat.decode(wire, null, null, opens);
            assertEquals(1, opens.calls.size());
            Object[] c = opens.calls.get(0);
            assertEquals(DataType.FLOAT32, c[0]);
            assertArrayEquals(new long[] {4, 256}, (long[]) c[1]);
            assertArrayEquals(HANDLE, (byte[]) c[2]);
            assertEquals(4096L, c[3]);
            assertEquals(4096L, c[4]);
            HostTensor t = back.get(HostTensor.class, "t");
            assertArrayEquals(device.asSlice(4096, 4096).toArray(ValueLayout.JAVA_BYTE),
                    t.data().toArray(ValueLayout.JAVA_BYTE));
            assertArrayEquals(host.toArray(ValueLayout.JAVA_BYTE),
                    back.get(HostTensor.class, "h").data().toArray(ValueLayout.JAVA_BYTE));
            assertEquals(new Timestamp(7, 8), back.timestamp());
            assertEquals(List.of(Timestamp.NAME, "t", "h"), back.names());
            back.release();
            m.release();
        }
    }

    @Test
    void withoutAnExportTheDeviceBytesGoAsBefore() {
        try (Arena arena = Arena.ofConfined()) {
            Message m = Message.create();
            m.add("t", new RefTensor(DataType.INT32, new long[] {2}, HANDLE, 0));
            // an export that declines: the encoder reads the bytes back (here: the fixture refuses, proving it tried)
            assertThrows(AssertionError.class, () -> WireFormat.encode(m, arena, t -> null));
            assertThrows(AssertionError.class, () -> WireFormat.encode(m, arena));
            m.release();
        }
    }

    @Test
    void aReceiverThatOfferedNoReferencesRefusesOne() {
        try (Arena arena = Arena.ofConfined()) {
            var ex = assertThrows(WireFormat.FormatException.class,
                    () -> WireFormat.decode(oneReference(arena), null, null, null));
            assertTrue(ex.getMessage().contains("offered no device references"), ex.getMessage());
        }
    }

    private static void refused(MemorySegment wire, String expected) {
        Opens opens = new Opens(Arena.ofAuto().allocate(1 << 20, 64));
        var ex = assertThrows(WireFormat.FormatException.class, () -> WireFormat.decode(wire, null, null, opens));
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
        assertEquals(0, opens.calls.size(), "nothing opened for a malformed reference");
    }

    @Test
    void malformedReferencesAreRefusedBeforeAnythingIsOpened() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment w = oneReference(arena);
            w.set(I64, OFFSET, -64);
            refused(w, "device reference to [-64");

            w = oneReference(arena);
            w.set(I64, BYTES, 1L << 40); // more than the shape spans
            refused(w, "for a tensor of 4096 bytes");

            w = oneReference(arena);
            w.set(I64, SHAPE, 1L << 40); // a shape of 2^40 rows whose declared size still says 4096
            refused(w, "for a tensor of");

            w = oneReference(arena);
            w.set(I64, SHAPE, Long.MAX_VALUE / 2); // overflowing
            refused(w, "overflow");

            w = oneReference(arena);
            w.set(I64, STRIDES, 2048); // rows overlap nothing but are not dense
            refused(w, "must be dense");

            w = oneReference(arena);
            w.set(U16, HANDLE_LEN, (short) 0);
            refused(w, "handle of 0 bytes");

            w = oneReference(arena);
            w.set(U16, HANDLE_LEN, (short) 2000);
            refused(w, "handle of 2000 bytes");

            w = oneReference(arena);
            w.set(U16, HANDLE_LEN, (short) 100); // longer than the header holds
            refused(w, "header truncated");

            w = oneReference(arena);
            w.set(U16, HANDLE_LEN + 2, (short) 1);
            refused(w, "reserved field");

            w = oneReference(arena);
            w.set(ValueLayout.JAVA_BYTE, SHAPE - 3, (byte) 0); // storage 0 (host) under kind 5
            refused(w, "storage 0");
        }
    }

    @Test
    void aHandleTheReceiverCannotOpenIsAMalformedMessage() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment w = oneReference(arena);
            w.set(I64, OFFSET, 1L << 20); // past the end of the (stand-in) sender buffer
            Opens opens = new Opens(arena.allocate(8192, 64));
            var ex = assertThrows(WireFormat.FormatException.class, () -> WireFormat.decode(w, null, null, opens));
            assertTrue(ex.getMessage().contains("range outside the buffer"), ex.getMessage());
        }
    }

    @Test
    void theEncoderRefusesHandlesItCannotCarry() {
        try (Arena arena = Arena.ofConfined()) {
            Message m = Message.create();
            m.add("t", new RefTensor(DataType.UINT8, new long[] {64}, new byte[WireFormat.MAX_HANDLE + 1], 0));
            assertThrows(IllegalArgumentException.class,
                    () -> WireFormat.encode(m, arena, t -> t.ipcRegion().orElse(null)));
            m.release();
        }
    }
}

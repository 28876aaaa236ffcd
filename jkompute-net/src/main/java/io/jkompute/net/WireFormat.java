package io.jkompute.net;

import io.jkompute.DataType;
import io.jkompute.graph.DeviceTensor;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.IpcRegion;
import io.jkompute.graph.Message;
import io.jkompute.graph.Timestamp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The documented fixed binary layout of one message on the wire (little-endian, version {@value #VERSION}).
 *
 * <pre>
 * message   := header payload*
 * header    := u32 magic 0x4D4E4B4A ("JKNM")  u16 version  u16 componentCount
 *              u64 messageBytes (header + payloads, padding included)  u32 headerBytes  u32 reserved(0)
 *              component*                      (then zero padding to a multiple of 64)
 * component := u8 kind  u8 reserved(0)  u16 nameBytes  name(UTF-8)  body
 *   kind 1 timestamp    body := i64 pubtime  i64 acqtime
 *   kind 2 host tensor  body := tensor
 *   kind 3 device tensor body := tensor      (staged once through host memory by the sender)
 *   kind 4 string       body := u32 bytes  UTF-8
 *   kind 5 device tensor by reference  body := tensor  u16 handleBytes  u16 reserved(0)  handle
 *                       (same host and GPU only: payloadOffset is the offset of the bytes in the sender's device
 *                       buffer that {@code handle} names, e.g. a CUDA IPC handle; no payload in the message)
 * tensor    := u8 dtype  u8 storage(0 host, 1 system, 2 device)  u8 rank  u8 reserved(0)
 *              i64 shape[rank]  i64 strides[rank] (bytes)  u64 payloadOffset (from message start, 64-aligned)
 *              (0 when payloadBytes is 0)  u64 payloadBytes (the strided extent: Σ (shape[i]−1)·strides[i] + element size; 0 when empty)
 * dtype     := 1 bool 2 int8 3 uint8 4 int16 5 uint16 6 int32 7 uint32 8 int64 9 uint64 10 float16 11 float32
 *              12 float64 13 complex64 14 complex128
 * </pre>
 *
 * Host tensors travel with their strides and arrive as {@link HostTensor}s with the same shape, dtype and strides;
 * device tensors arrive dense, on the receiver's device when it has one (else as host tensors). A device tensor
 * goes by reference (kind 5) only when the sender's {@link IpcExport} gives a region for it, and the receiver
 * copies it on the device with its {@link IpcFactory}. Any other component type is refused with a clear error.
 */
public final class WireFormat {
    /** The first four bytes of every message. */
    public static final int MAGIC = 0x4D4E4B4A;
    /** The format version a message carries; another version is refused. */
    public static final int VERSION = 1;
    /** The size of a message header's fixed part, in bytes. */
    public static final int HEADER_FIXED = 24;
    static final int ALIGN = 64;
    static final int KIND_TIMESTAMP = 1;
    static final int KIND_HOST_TENSOR = 2;
    static final int KIND_DEVICE_TENSOR = 3;
    static final int KIND_STRING = 4;
    static final int KIND_DEVICE_REF = 5;
    /** The largest device buffer handle a reference may carry (CUDA's take 89 bytes). */
    public static final int MAX_HANDLE = 1024;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final DataType[] CODES = {null, DataType.BOOL, DataType.INT8, DataType.UINT8, DataType.INT16,
            DataType.UINT16, DataType.INT32, DataType.UINT32, DataType.INT64, DataType.UINT64, DataType.FLOAT16,
            DataType.FLOAT32, DataType.FLOAT64, DataType.COMPLEX64, DataType.COMPLEX128};

    /** The highest tensor rank the decoder accepts. */
    public static final int MAX_RANK = 32;

    /**
     * A message or link frame that does not follow the layout (bad magic, other version, truncated, unknown codes,
     * sizes that do not fit): the one exception the decoder throws for malformed input, whatever is wrong with it.
     */
    public static final class FormatException extends RuntimeException {
        /** A message that is not in this format, saying why. */
        public FormatException(String message) {
            super(message);
        }
    }

    /** Makes device tensors on the receiving side; returns null to keep the data on the host. */
    @FunctionalInterface
    public interface DeviceFactory {
        /** A device tensor holding {@code bytes} as {@code type} and {@code shape}, or null to keep them on the host. */
        GraphTensor create(DataType type, long[] shape, MemorySegment bytes);
    }

    /** Decides, on the sending side, which device tensors go by reference instead of by their bytes. */
    @FunctionalInterface
    public interface IpcExport {
        /** Where the receiver can read {@code tensor}'s bytes on the device, or null to send the bytes. */
        IpcRegion export(GraphTensor tensor);
    }

    /** Makes device tensors from references on the receiving side (see {@link io.jkompute.graph.IpcImports}). */
    @FunctionalInterface
    public interface IpcFactory {
        /**
         * A device tensor of {@code type} and {@code shape} holding a copy of {@code bytes} bytes at {@code offset} of
         * the sender's buffer named by {@code handle}; the copy has finished when this returns.
         *
         * @throws IllegalArgumentException when the handle cannot be opened or the range does not fit its buffer
         */
        GraphTensor open(DataType type, long[] shape, byte[] handle, long offset, long bytes);
    }

    /** One piece of an encoded message: bytes to place at {@code offset} of the message. */
    public record Part(long offset, MemorySegment bytes) {
    }

    /** An encoded message: its length and the parts (header first) that make it up; padding is implicit zeros. */
    public record Encoded(long messageBytes, List<Part> parts) {
        /** The whole message in one segment (tests, small messages). */
        public MemorySegment toSegment(Arena arena) {
            MemorySegment out = arena.allocate(Math.max(1, messageBytes), ALIGN).asSlice(0, messageBytes);
            for (Part p : parts) {
                MemorySegment.copy(p.bytes, 0, out, p.offset, p.bytes.byteSize());
            }
            return out;
        }
    }

    private WireFormat() {
    }

    static int code(DataType t) {
        for (int i = 1; i < CODES.length; i++) {
            if (CODES[i] == t) {
                return i;
            }
        }
        throw new IllegalArgumentException("data type " + t + " has no wire code");
    }

    /**
     * Encodes a message. Host tensors are referenced in place (not copied); device tensors are read back once into
     * {@code staging}. The header is written into a segment from {@code staging}.
     */
    public static Encoded encode(Message m, Arena staging) {
        return encode(m, staging, null);
    }

    /**
     * Encodes a message; device tensors for which {@code export} gives a region go by reference (kind 5): the
     * caller keeps them allocated and unchanged until the receiver has copied them.
     */
    public static Encoded encode(Message m, Arena staging, IpcExport export) {
        MessageEncoder e = new MessageEncoder(staging);
        e.plan(m, export);
        return e.encoded(staging);
    }

    /** Decodes a whole message; host tensors keep referring to {@code bytes} (which must stay alive). */
    public static Message decode(MemorySegment bytes, DeviceFactory devices) {
        return decode(bytes, devices, null);
    }

    /**
     * Decodes a whole message whose bytes live in {@code arena}: host tensors keep referring to them and the arena
     * closes when the last of them is closed (at once when none refers to it).
     */
    public static Message decode(MemorySegment bytes, DeviceFactory devices, Arena arena) {
        return decode(bytes, devices, arena, null);
    }

    /**
     * As {@link #decode(MemorySegment, DeviceFactory, Arena)}; device tensors sent by reference (kind 5) are made by
     * {@code references}, and refused as malformed where it is null (this side offered no device references).
     */
    public static Message decode(MemorySegment bytes, DeviceFactory devices, Arena arena, IpcFactory references) {
        java.util.concurrent.atomic.AtomicInteger users = new java.util.concurrent.atomic.AtomicInteger(1);
        AutoCloseable drop = arena == null ? null : () -> {
            if (users.decrementAndGet() == 0) {
                arena.close();
            }
        };
        try {
            return decode0(bytes, devices, references, drop, users);
        } catch (ArithmeticException | IndexOutOfBoundsException | IllegalArgumentException e) {
            // checks below come first; this only keeps the promise of one exception type for malformed input
            throw e instanceof FormatException f ? f : new FormatException("malformed message: " + e.getMessage());
        } finally {
            if (drop != null) {
                try {
                    drop.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    private static Message decode0(MemorySegment bytes, DeviceFactory devices, IpcFactory references, AutoCloseable drop,
                                   java.util.concurrent.atomic.AtomicInteger users) {
        long n = bytes.byteSize();
        if (n < HEADER_FIXED) {
            throw new FormatException("message of " + n + " bytes is shorter than the " + HEADER_FIXED
                    + "-byte header");
        }
        int magic = bytes.get(U32, 0);
        if (magic != MAGIC) {
            throw new FormatException(String.format("not a jkompute message: magic 0x%08x, expected 0x%08x", magic,
                    MAGIC));
        }
        int version = Short.toUnsignedInt(bytes.get(U16, 4));
        if (version != VERSION) {
            throw new FormatException("the peer sent wire format version " + version + "; this build reads version "
                    + VERSION + " (run the same jkompute version on both ends)");
        }
        int count = Short.toUnsignedInt(bytes.get(U16, 6));
        long total = bytes.get(I64, 8);
        long headerLen = Integer.toUnsignedLong(bytes.get(U32, 16));
        if (total != n || headerLen > n || headerLen < HEADER_FIXED) {
            throw new FormatException("message says " + total + " bytes (header " + headerLen + "), got " + n);
        }
        if (bytes.get(U32, 20) != 0) {
            throw new FormatException("reserved header field is " + bytes.get(U32, 20) + ", must be 0");
        }
        // every component takes at least 4 header bytes: a count the header cannot hold is refused before any work
        if (count > (headerLen - HEADER_FIXED) / 4) {
            throw new FormatException("message declares " + count + " components in a " + headerLen
                    + "-byte header");
        }
        long payloadFloor = align(headerLen);
        // no tick's: a receiver decodes on its link thread or, polling, on a scheduler thread inside another tick
        Message m = Message.createDetached("received from a link");
        boolean ok = false;
        try {
            long pos = HEADER_FIXED;
            for (int i = 0; i < count; i++) {
                need(pos + 4, headerLen);
                int kind = bytes.get(ValueLayout.JAVA_BYTE, pos);
                if (bytes.get(ValueLayout.JAVA_BYTE, pos + 1) != 0) {
                    throw new FormatException("component " + i + ": reserved byte is not 0");
                }
                int nameLen = Short.toUnsignedInt(bytes.get(U16, pos + 2));
                need(pos + 4 + nameLen, headerLen);
                String name = new String(bytes.asSlice(pos + 4, nameLen).toArray(ValueLayout.JAVA_BYTE),
                        StandardCharsets.UTF_8);
                pos += 4 + nameLen;
                switch (kind) {
                    case KIND_TIMESTAMP -> {
                        need(pos + 16, headerLen);
                        m.add(name, new Timestamp(bytes.get(I64, pos), bytes.get(I64, pos + 8)));
                        pos += 16;
                    }
                    case KIND_HOST_TENSOR, KIND_DEVICE_TENSOR -> {
                        need(pos + 4, headerLen);
                        int code = Byte.toUnsignedInt(bytes.get(ValueLayout.JAVA_BYTE, pos));
                        int storage = Byte.toUnsignedInt(bytes.get(ValueLayout.JAVA_BYTE, pos + 1));
                        int rank = Byte.toUnsignedInt(bytes.get(ValueLayout.JAVA_BYTE, pos + 2));
                        if (code == 0 || code >= CODES.length) {
                            throw new FormatException("component '" + name + "': unknown dtype code " + code);
                        }
                        if (kind == KIND_HOST_TENSOR ? storage > 1 : storage != 2) {
                            throw new FormatException("component '" + name + "': storage " + storage
                                    + " does not match its kind " + kind);
                        }
                        if (bytes.get(ValueLayout.JAVA_BYTE, pos + 3) != 0) {
                            throw new FormatException("component '" + name + "': reserved byte is not 0");
                        }
                        if (rank > MAX_RANK) {
                            throw new FormatException("component '" + name + "': rank " + rank + " (at most "
                                    + MAX_RANK + ")");
                        }
                        DataType type = CODES[code];
                        pos += 4;
                        need(pos + 16L * rank + 16, headerLen);
                        long[] shape = dims(bytes, pos, rank);
                        long[] strides = dims(bytes, pos + 8L * rank, rank);
                        pos += 16L * rank;
                        long off = bytes.get(I64, pos);
                        long len = bytes.get(I64, pos + 8);
                        pos += 16;
                        // the tensor must fit its payload exactly: shape and strides are checked (no negative,
                        // no overflow) and their extent must equal the payload's size, which must lie inside the
                        // message after the header, 64-aligned, before anything is made from it
                        long extent = strictExtent(name, shape, strides, type.byteSize());
                        if (kind == KIND_DEVICE_TENSOR
                                && !java.util.Arrays.equals(strides, GraphTensor.denseStrides(shape, type.byteSize()))) {
                            throw new FormatException("component '" + name + "': a device tensor must be dense");
                        }
                        if (len != extent) {
                            throw new FormatException("component '" + name + "': payload of " + len + " bytes for a "
                                    + "tensor whose shape and strides span " + extent);
                        }
                        if (len == 0) {
                            if (off != 0) {
                                throw new FormatException("component '" + name + "': empty payload at " + off);
                            }
                        } else if (off < payloadFloor || (off & (ALIGN - 1)) != 0 || off > n - len) {
                            throw new FormatException("component '" + name + "': payload [" + off + ", +" + len
                                    + ") outside the " + n + "-byte message's payload area or not 64-aligned");
                        }
                        MemorySegment data = bytes.asSlice(off, len);
                        GraphTensor t = null;
                        if (kind == KIND_DEVICE_TENSOR && devices != null) {
                            t = devices.create(type, shape, data);
                        }
                        if (t == null && drop == null) {
                            t = HostTensor.wrap(data, type, shape, strides);
                        } else if (t == null) {
                            users.incrementAndGet();
                            java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
                            t = HostTensor.wrap(data, type, shape, strides, () -> {
                                if (once.compareAndSet(false, true)) {
                                    drop.close();
                                }
                            });
                        }
                        m.add(name, t);
                    }
                    case KIND_DEVICE_REF -> {
                        need(pos + 4, headerLen);
                        int code = Byte.toUnsignedInt(bytes.get(ValueLayout.JAVA_BYTE, pos));
                        int storage = Byte.toUnsignedInt(bytes.get(ValueLayout.JAVA_BYTE, pos + 1));
                        int rank = Byte.toUnsignedInt(bytes.get(ValueLayout.JAVA_BYTE, pos + 2));
                        if (code == 0 || code >= CODES.length || storage != 2
                                || bytes.get(ValueLayout.JAVA_BYTE, pos + 3) != 0 || rank > MAX_RANK) {
                            throw new FormatException("component '" + name + "': device reference with dtype " + code
                                    + ", storage " + storage + ", rank " + rank);
                        }
                        DataType type = CODES[code];
                        pos += 4;
                        need(pos + 16L * rank + 20, headerLen);
                        long[] shape = dims(bytes, pos, rank);
                        long[] strides = dims(bytes, pos + 8L * rank, rank);
                        pos += 16L * rank;
                        long off = bytes.get(I64, pos);
                        long len = bytes.get(I64, pos + 8);
                        int handleLen = Short.toUnsignedInt(bytes.get(U16, pos + 16));
                        if (bytes.get(U16, pos + 18) != 0) {
                            throw new FormatException("component '" + name + "': reserved field is not 0");
                        }
                        pos += 20;
                        if (handleLen < 1 || handleLen > MAX_HANDLE) {
                            throw new FormatException("component '" + name + "': device buffer handle of " + handleLen
                                    + " bytes (1 to " + MAX_HANDLE + ")");
                        }
                        need(pos + handleLen, headerLen);
                        byte[] handle = bytes.asSlice(pos, handleLen).toArray(ValueLayout.JAVA_BYTE);
                        pos += handleLen;
                        // shape, strides and size checked before the receiver allocates or opens anything
                        long extent = strictExtent(name, shape, strides, type.byteSize());
                        if (!java.util.Arrays.equals(strides, GraphTensor.denseStrides(shape, type.byteSize()))) {
                            throw new FormatException("component '" + name + "': a device tensor must be dense");
                        }
                        if (len != extent || len == 0 || off < 0) {
                            throw new FormatException("component '" + name + "': device reference to [" + off + ", +"
                                    + len + ") for a tensor of " + extent + " bytes");
                        }
                        if (references == null) {
                            throw new FormatException("component '" + name + "': a device tensor by reference, but "
                                    + "this receiver offered no device references");
                        }
                        m.add(name, references.open(type, shape, handle, off, len));
                    }
                    case KIND_STRING -> {
                        need(pos + 4, headerLen);
                        long len = Integer.toUnsignedLong(bytes.get(U32, pos));
                        need(pos + 4 + len, headerLen);
                        m.add(name, new String(bytes.asSlice(pos + 4, len).toArray(ValueLayout.JAVA_BYTE),
                                StandardCharsets.UTF_8));
                        pos += 4 + len;
                    }
                    default -> throw new FormatException("component '" + name + "': unknown kind " + kind);
                }
            }
            if (pos != headerLen) {
                throw new FormatException("header says " + headerLen + " bytes, its components end at " + pos);
            }
            ok = true;
            return m;
        } finally {
            if (!ok) {
                m.release();
            }
        }
    }

    /** Makes a device tensor on {@code manager}'s GPU holding {@code bytes} (dense). */
    static GraphTensor onDevice(io.jkompute.Manager manager, DataType type, long[] shape, MemorySegment bytes) {
        DeviceTensor t = DeviceTensor.of(manager.tensor(type, shape));
        try {
            t.upload(bytes);
            return t;
        } catch (RuntimeException e) {
            t.close();
            throw e;
        }
    }

    /** {@code rank} 64-bit values at {@code pos} (a tensor header's shape, or its strides). */
    private static long[] dims(MemorySegment bytes, long pos, int rank) {
        long[] v = new long[rank];
        for (int d = 0; d < rank; d++) {
            v[d] = bytes.get(I64, pos + 8L * d);
        }
        return v;
    }

    private static void need(long end, long headerLen) {
        if (end > headerLen) {
            throw new FormatException("header truncated: needs " + end + " bytes, has " + headerLen);
        }
    }

    /** The bytes a tensor spans; a FormatException for negative or overflowing shapes and strides. */
    private static long strictExtent(String name, long[] shape, long[] strides, int elementSize) {
        long count = 1;
        long extent = 0;
        try {
            for (int i = 0; i < shape.length; i++) {
                if (shape[i] < 0 || strides[i] < 0) {
                    throw new FormatException("component '" + name + "': negative shape or stride in dimension " + i);
                }
                count = Math.multiplyExact(count, shape[i]);
                if (shape[i] > 0) {
                    extent = Math.addExact(extent, Math.multiplyExact(shape[i] - 1, strides[i]));
                }
            }
            if (count == 0) {
                return 0;
            }
            extent = Math.addExact(extent, elementSize);
            // elements that overlap (zero or small strides) would let a few payload bytes stand for a huge tensor
            // that a consumer then allocates: the wire carries tensors whose elements fit their span
            if (Math.multiplyExact(count, (long) elementSize) > extent) {
                throw new FormatException("component '" + name + "': " + count + " elements of " + elementSize
                        + " bytes in a span of " + extent + " bytes (overlapping strides)");
            }
            return extent;
        } catch (ArithmeticException e) {
            throw new FormatException("component '" + name + "': shape and strides overflow 64 bits");
        }
    }

    static long extent(long[] shape, long[] strides, int elementSize) {
        long n = 1;
        long extent = 0;
        for (int i = 0; i < shape.length; i++) {
            n *= shape[i];
            if (strides[i] < 0) {
                throw new IllegalArgumentException("negative strides cannot be sent");
            }
            extent += (shape[i] - 1) * strides[i];
        }
        return n == 0 ? 0 : extent + elementSize;
    }

    static long align(long v) {
        return (v + ALIGN - 1) & -ALIGN;
    }
}

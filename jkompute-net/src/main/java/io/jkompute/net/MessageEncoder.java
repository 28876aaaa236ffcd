package io.jkompute.net;

import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.IpcRegion;
import io.jkompute.graph.Message;
import io.jkompute.graph.StorageType;
import io.jkompute.graph.Timestamp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Encodes messages in {@link WireFormat}'s layout for one sending thread, reusing its arrays: {@link #plan} lays a
 * message out (sizes, offsets, device tensors read back or exported), then {@link #writeTo} writes it whole into a
 * buffer (a claimed range of a link's log: the payload is copied once, straight into the frame), or
 * {@link #encoded} gives its parts for the paths that send it in pieces. Nothing is allocated per message for the
 * usual small message of host tensors and a timestamp, but the name and string bytes of names not seen recently.
 * Not thread-safe.
 */
final class MessageEncoder {
    private static final int NAME_CACHE = 16;

    private int count;
    private String[] names = new String[4];
    private Object[] values = new Object[4];
    private byte[][] nameBytes = new byte[4][];
    private IpcRegion[] refs = new IpcRegion[4];
    /** The bytes each tensor sends (null for none: a timestamp, a string, an empty tensor, a reference). */
    private MemorySegment[] payloads = new MemorySegment[4];
    private long[] payloadAt = new long[4];
    private long[][] strides = new long[4][];
    private byte[][] strings = new byte[4][];
    private long headerLen;
    private long total;
    private Arena staging;
    /** The caller's arena for staged device bytes (they outlive this encoder), or null: its own, freed by release. */
    private final Arena external;
    private final BiConsumer<String, Object> collect = this::collect;
    /** Recently seen component names and their UTF-8 bytes, matched by identity (names are usually constants). */
    private final String[] cachedNames = new String[NAME_CACHE];
    private final byte[][] cachedBytes = new byte[NAME_CACHE][];
    private int nextCached;
    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);

    /** An encoder that stages device bytes in memory of its own, freed by {@link #release()} after each message. */
    MessageEncoder() {
        this(null);
    }

    /** An encoder that stages device bytes in {@code staging}, which the caller closes (one-off encodings). */
    MessageEncoder(Arena staging) {
        this.external = staging;
    }

    /**
     * Lays out {@code m}: its components' header entries, and where each payload goes. Device tensors for which
     * {@code export} gives a region go by reference; other device tensors are read back into this encoder's staging
     * memory (freed by {@link #release()}). Returns the message's size in bytes.
     *
     * @throws IllegalArgumentException for a component that cannot cross a process boundary, a tensor whose elements
     *                                  overlap, a handle or name that does not fit its field
     */
    long plan(Message m, WireFormat.IpcExport export) {
        clearComponents();
        m.forEach(collect);
        if (count > 0xFFFF) {
            throw new IllegalArgumentException("a message of " + count + " components is too large");
        }
        long h = WireFormat.HEADER_FIXED;
        for (int i = 0; i < count; i++) {
            byte[] nb = nameBytes(names[i]);
            nameBytes[i] = nb;
            h += 4 + nb.length;
            Object v = values[i];
            if (v instanceof Timestamp) {
                h += 16;
            } else if (v instanceof GraphTensor t) {
                h += 4 + 16L * t.shape().length + 16;
                if (export != null && !(t instanceof HostTensor) && t.byteSize() > 0) {
                    IpcRegion r = export.export(t);
                    if (r != null) {
                        if (r.handle().length < 1 || r.handle().length > WireFormat.MAX_HANDLE) {
                            throw new IllegalArgumentException("a device buffer handle of " + r.handle().length
                                    + " bytes (1 to " + WireFormat.MAX_HANDLE + ")");
                        }
                        refs[i] = r;
                        h += 4 + r.handle().length;
                    }
                }
            } else if (v instanceof String s) {
                strings[i] = s.getBytes(StandardCharsets.UTF_8);
                h += 4 + strings[i].length;
            } else {
                throw new IllegalArgumentException("component '" + names[i] + "' of type " + v.getClass().getName()
                        + " cannot cross a process boundary: the wire carries timestamps, host and device tensors "
                        + "and strings");
            }
        }
        headerLen = h;
        long at = WireFormat.align(h);
        long end = h;
        for (int i = 0; i < count; i++) {
            if (!(values[i] instanceof GraphTensor t)) {
                continue;
            }
            long[] shape = t.shape();
            if (shape.length > 255) {
                throw new IllegalArgumentException("tensor '" + names[i] + "' has rank " + shape.length
                        + "; the wire carries at most 255");
            }
            int size = t.dataType().byteSize();
            MemorySegment bytes;
            if (t instanceof HostTensor ht) {
                long[] s = ht.strides();
                long extent = WireFormat.extent(shape, s, size);
                if (GraphTensor.elementCount(shape) * size > extent) {
                    throw new IllegalArgumentException("tensor '" + names[i] + "' has overlapping elements (strides "
                            + Arrays.toString(s) + "); the wire carries tensors whose elements do not overlap: send a "
                            + "contiguous copy");
                }
                strides[i] = s;
                bytes = ht.data().asSlice(0, extent);
            } else {
                strides[i] = GraphTensor.denseStrides(shape, size);
                bytes = refs[i] != null ? null : t.toHost(staging()).asSlice(0, t.byteSize());
            }
            if (bytes != null && bytes.byteSize() > 0) {
                payloads[i] = bytes;
                payloadAt[i] = at;
                end = at + bytes.byteSize();
                at = WireFormat.align(end);
            }
        }
        total = end;
        return total;
    }

    /** The planned message's size in bytes. */
    long messageBytes() {
        return total;
    }

    /**
     * Writes the planned message at {@code at} of {@code b} ({@link #messageBytes()} bytes): header, payloads, and
     * zeros between them (a log buffer is not guaranteed zeroed).
     */
    void writeTo(MutableDirectBuffer b, int at) {
        writeHeader(b, at);
        long pos = headerLen;
        for (int i = 0; i < count; i++) {
            MemorySegment p = payloads[i];
            if (p == null) {
                continue;
            }
            b.setMemory(at + (int) pos, (int) (payloadAt[i] - pos), (byte) 0);
            view(p);
            int n = (int) p.byteSize();
            b.putBytes(at + (int) payloadAt[i], payloadView, 0, n);
            pos = payloadAt[i] + n;
        }
    }

    /** The planned message as parts (header from {@code arena}, payloads in place), for the paths that send pieces. */
    WireFormat.Encoded encoded(Arena arena) {
        MemorySegment header = arena.allocate(headerLen, 8);
        writeHeader(new UnsafeBuffer(header.address(), (int) headerLen), 0);
        List<WireFormat.Part> parts = new ArrayList<>(1 + count);
        parts.add(new WireFormat.Part(0, header));
        for (int i = 0; i < count; i++) {
            if (payloads[i] != null) {
                parts.add(new WireFormat.Part(payloadAt[i], payloads[i]));
            }
        }
        return new WireFormat.Encoded(total, parts);
    }

    /** Frees what the last message staged (device tensors read back) and forgets its components. */
    void release() {
        if (staging != null) {
            staging.close();
            staging = null;
        }
        clearComponents();
    }

    private Arena staging() {
        if (external != null) {
            return external;
        }
        if (staging == null) {
            staging = Arena.ofConfined();
        }
        return staging;
    }

    private void writeHeader(MutableDirectBuffer b, int at) {
        b.putInt(at, WireFormat.MAGIC, Frames.LE);
        b.putShort(at + 4, (short) WireFormat.VERSION, Frames.LE);
        b.putShort(at + 6, (short) count, Frames.LE);
        b.putLong(at + 8, total, Frames.LE);
        b.putInt(at + 16, (int) headerLen, Frames.LE);
        b.putInt(at + 20, 0, Frames.LE);
        int pos = at + WireFormat.HEADER_FIXED;
        for (int i = 0; i < count; i++) {
            Object v = values[i];
            int kind = v instanceof Timestamp ? WireFormat.KIND_TIMESTAMP
                    : v instanceof HostTensor ? WireFormat.KIND_HOST_TENSOR
                    : refs[i] != null ? WireFormat.KIND_DEVICE_REF
                    : v instanceof GraphTensor ? WireFormat.KIND_DEVICE_TENSOR : WireFormat.KIND_STRING;
            byte[] nb = nameBytes[i];
            b.putByte(pos, (byte) kind);
            b.putByte(pos + 1, (byte) 0);
            b.putShort(pos + 2, (short) nb.length, Frames.LE);
            b.putBytes(pos + 4, nb);
            pos += 4 + nb.length;
            switch (v) {
                case Timestamp ts -> {
                    b.putLong(pos, ts.pubtime(), Frames.LE);
                    b.putLong(pos + 8, ts.acqtime(), Frames.LE);
                    pos += 16;
                }
                case GraphTensor t -> {
                    long[] shape = t.shape();
                    long[] s = strides[i];
                    b.putByte(pos, (byte) WireFormat.code(t.dataType()));
                    b.putByte(pos + 1, (byte) (t instanceof HostTensor ht
                            ? (ht.storage() == StorageType.SYSTEM ? 1 : 0) : 2));
                    b.putByte(pos + 2, (byte) shape.length);
                    b.putByte(pos + 3, (byte) 0);
                    pos += 4;
                    for (long d : shape) {
                        b.putLong(pos, d, Frames.LE);
                        pos += 8;
                    }
                    for (long d : s) {
                        b.putLong(pos, d, Frames.LE);
                        pos += 8;
                    }
                    if (refs[i] != null) {
                        // by reference: the bytes stay in the sender's device buffer
                        byte[] handle = refs[i].handle();
                        b.putLong(pos, refs[i].offset(), Frames.LE);
                        b.putLong(pos + 8, t.byteSize(), Frames.LE);
                        b.putShort(pos + 16, (short) handle.length, Frames.LE);
                        b.putShort(pos + 18, (short) 0, Frames.LE);
                        b.putBytes(pos + 20, handle);
                        pos += 20 + handle.length;
                    } else {
                        MemorySegment p = payloads[i];
                        b.putLong(pos, p == null ? 0 : payloadAt[i], Frames.LE);
                        b.putLong(pos + 8, p == null ? 0 : p.byteSize(), Frames.LE);
                        pos += 16;
                    }
                }
                case String ignored -> {
                    byte[] sb = strings[i];
                    b.putInt(pos, sb.length, Frames.LE);
                    b.putBytes(pos + 4, sb);
                    pos += 4 + sb.length;
                }
                default -> throw new AssertionError(v);
            }
        }
    }

    /** Wraps {@code p} for a copy: native memory by address, heap memory through a buffer view. */
    private void view(MemorySegment p) {
        if (p.isNative()) {
            payloadView.wrap(p.address(), (int) p.byteSize());
        } else {
            payloadView.wrap(p.asByteBuffer());
        }
    }

    private void collect(String name, Object value) {
        if (count == names.length) {
            int n = 2 * count;
            names = Arrays.copyOf(names, n);
            values = Arrays.copyOf(values, n);
            nameBytes = Arrays.copyOf(nameBytes, n);
            refs = Arrays.copyOf(refs, n);
            payloads = Arrays.copyOf(payloads, n);
            payloadAt = Arrays.copyOf(payloadAt, n);
            strides = Arrays.copyOf(strides, n);
            strings = Arrays.copyOf(strings, n);
        }
        names[count] = name;
        values[count] = value;
        count++;
    }

    private void clearComponents() {
        for (int i = 0; i < count; i++) {
            names[i] = null;
            values[i] = null;
            nameBytes[i] = null;
            refs[i] = null;
            payloads[i] = null;
            strides[i] = null;
            strings[i] = null;
        }
        count = 0;
        headerLen = 0;
        total = 0;
    }

    private byte[] nameBytes(String name) {
        for (int i = 0; i < NAME_CACHE; i++) {
            if (cachedNames[i] == name) {
                return cachedBytes[i];
            }
        }
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        if (b.length > 0xFFFF) {
            throw new IllegalArgumentException("component name longer than 65535 bytes");
        }
        cachedNames[nextCached] = name;
        cachedBytes[nextCached] = b;
        nextCached = (nextCached + 1) % NAME_CACHE;
        return b;
    }
}

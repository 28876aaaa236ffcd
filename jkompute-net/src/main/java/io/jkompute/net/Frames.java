package io.jkompute.net;

import java.nio.ByteOrder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The link protocol around {@link WireFormat} messages: every Aeron message starts with a 40-byte frame header,
 * little-endian: {@code u32 magic 0x464E4B4A ("JKNF"), u8 protocol version, u8 type, u16 flags, i64 a, i64 b,
 * i64 c, i64 d}, then the type's payload.
 *
 * <pre>
 * transmitter → receiver (data stream 1001)
 *   HELLO      a = link id, b = the transmitter's control port; payload = its path (UTF-8)
 *   DATA       a = message sequence (1, 2, …), b = message bytes, c = offset of this chunk; flag LAST on the
 *              message's final chunk; payload = the chunk
 *   HEARTBEAT  a = messages sent
 *   BYE        a = messages sent (the transmitter closes cleanly)
 * receiver → transmitter (control stream 1002)
 *   WELCOME    a = capacity, b = policy (0, 1, 2), c = places freed; payload = the receiver's path
 *   CREDIT     a = places freed (messages taken out of the queue or dropped by its policy), b = messages received,
 *              c = messages dropped (sent every 200 ms as a heartbeat, and whenever a place frees)
 *   BYE        as CREDIT (the receiver closes cleanly)
 * </pre>
 */
final class Frames {
    static final int MAGIC = 0x464E4B4A;
    static final int PROTOCOL = 1;
    static final int HEADER = 40;
    static final int DATA_STREAM = 1001;
    static final int CONTROL_STREAM = 1002;

    static final int HELLO = 1;
    static final int DATA = 2;
    static final int HEARTBEAT = 3;
    static final int BYE = 4;
    static final int WELCOME = 11;
    static final int CREDIT = 12;

    static final int FLAG_LAST = 1;

    static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private Frames() {
    }

    static void header(MutableDirectBuffer b, int type, int flags, long a, long c1, long c2, long d) {
        header(b, 0, type, flags, a, c1, c2, d);
    }

    /** The header at {@code at} of {@code b} (a claimed range of a publication's log). */
    static void header(MutableDirectBuffer b, int at, int type, int flags, long a, long c1, long c2, long d) {
        b.putInt(at, MAGIC, LE);
        b.putByte(at + 4, (byte) PROTOCOL);
        b.putByte(at + 5, (byte) type);
        b.putShort(at + 6, (short) flags, LE);
        b.putLong(at + 8, a, LE);
        b.putLong(at + 16, c1, LE);
        b.putLong(at + 24, c2, LE);
        b.putLong(at + 32, d, LE);
    }

    /** The frame type, or throws on a foreign or newer frame. */
    static int type(DirectBuffer b, int offset, int length) {
        if (length < HEADER) {
            throw new WireFormat.FormatException("frame of " + length + " bytes is shorter than its header");
        }
        int magic = b.getInt(offset, LE);
        if (magic != MAGIC) {
            throw new WireFormat.FormatException(String.format("not a jkompute link frame (magic 0x%08x)", magic));
        }
        int version = b.getByte(offset + 4);
        if (version != PROTOCOL) {
            throw new WireFormat.FormatException("the peer speaks link protocol " + version + "; this build speaks "
                    + PROTOCOL + " (run the same jkompute version on both ends)");
        }
        return b.getByte(offset + 5);
    }

    static int flags(DirectBuffer b, int offset) {
        return b.getShort(offset + 6, LE);
    }

    static long a(DirectBuffer b, int offset) {
        return b.getLong(offset + 8, LE);
    }

    static long b(DirectBuffer b, int offset) {
        return b.getLong(offset + 16, LE);
    }

    static long c(DirectBuffer b, int offset) {
        return b.getLong(offset + 24, LE);
    }

    /** {@code host} for a channel: "0.0.0.0" and "" become localhost (as GXF's default addresses mean). */
    static String connectHost(String address) {
        return address == null || address.isBlank() || address.equals("0.0.0.0") ? "localhost" : address;
    }

    static String udp(String host, long port) {
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return "aeron:udp?endpoint=" + h + ":" + port;
    }
}

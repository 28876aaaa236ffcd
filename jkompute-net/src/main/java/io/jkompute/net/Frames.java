package io.jkompute.net;

import java.nio.ByteOrder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The link protocol around {@link WireFormat} messages: every Aeron message starts with a 72-byte frame header,
 * little-endian: {@code u32 magic 0x464E4B4A ("JKNF"), u8 protocol version, u8 type, u16 flags, i64 a, i64 b,
 * i64 c, u64 counter, u8 mac[32]}, then the type's payload. {@code mac} is HMAC-SHA256 over the header's first 40
 * bytes and the payload; {@code counter} grows by one per frame in each direction of a link, so a frame replayed
 * or reordered is refused.
 *
 * <pre>
 * transmitter → receiver (data stream 1001)
 *   HELLO      a = link id (random), b = the transmitter's control port; payload = its path (UTF-8);
 *              counter 0, keyed by the shared secret itself ({@link NetSecret}); flag DEVICE_REFS: the payload
 *              starts with the 16-byte identity of the transmitter's GPU (it can send device tensors by reference)
 *   DATA       a = message sequence (1, 2, …), b = message bytes, c = offset of this chunk; flag LAST on the
 *              message's final chunk; payload = the chunk
 *   BATCH      a = the first message's sequence, b = messages (1 to {@value #BATCH_MAX}), c = 0; payload = per message
 *              u32 bytes, the message, zeros to the next multiple of 8: small messages staged together, one frame
 *   SHARED     a = message sequence, b = message bytes, c = slot | slots &lt;&lt; 32 (the link's number of slots);
 *              payload = the slot file's absolute path (UTF-8): the whole message lies in that file of the
 *              transmitter's private folder (same host only, see {@link SharedSlots}); the frame is signed, the
 *              slot's bytes are not (README, trust model)
 *   HEARTBEAT  a = messages sent
 *   BYE        a = messages sent (the transmitter closes; flag FAILED: its run failed, payload = why)
 * receiver → transmitter (control stream 1002)
 *   WELCOME    a = capacity, b = policy (0, 1, 2), c = places freed; payload = u64 link id, u64 receiver nonce,
 *              the receiver's path; counter 0, keyed by the shared secret; flag DEVICE_REFS: the 16-byte
 *              identity of the receiver's GPU follows the nonce, and it takes device tensors by reference (its GPU
 *              is the one the HELLO named, and it copies them into its own device pool)
 *   CREDIT     a = places freed (messages taken out of the queue or dropped by its policy), b = messages received,
 *              c = messages dropped (sent every 200 ms as a heartbeat, and whenever a place frees)
 *   RELEASED   a = slot, b = the message that was in it: the receiver no longer reads that shared slot;
 *              flag DEVICE_REFS: b = a message with device tensors by reference, which the receiver has copied:
 *              the transmitter may reuse their buffers
 *   BYE        as CREDIT (the receiver closes; flag FAILED: its run failed, payload = why)
 * </pre>
 *
 * Every frame after HELLO and WELCOME is keyed by a per-link, per-direction key derived from the secret, the link id
 * and the receiver's nonce, and is accepted only from the Aeron session that sent the HELLO (or WELCOME): the link
 * is pinned to the peer that opened it.
 */
final class Frames {
    static final int MAGIC = 0x464E4B4A;
    static final int PROTOCOL = 2;
    /** The signed part of the header: everything before the MAC. */
    static final int SIGNED = 40;
    static final int MAC_AT = 40;
    static final int HEADER = SIGNED + io.jkompute.net.internal.Hmac.BYTES;
    static final int DATA_STREAM = 1001;
    static final int CONTROL_STREAM = 1002;

    static final int HELLO = 1;
    static final int DATA = 2;
    static final int HEARTBEAT = 3;
    static final int BYE = 4;
    static final int SHARED = 5;
    static final int BATCH = 6;
    /** The most messages one BATCH frame carries. */
    static final int BATCH_MAX = 256;
    static final int WELCOME = 11;
    static final int CREDIT = 12;
    static final int RELEASED = 13;

    static final int FLAG_LAST = 1;
    /** On BYE: the side's run failed; the payload says why. */
    static final int FLAG_FAILED = 2;
    /** On HELLO and WELCOME: device tensors may go by reference (a GPU identity in the payload); on RELEASED: see above. */
    static final int FLAG_DEVICE_REFS = 4;
    /** The size of a GPU identity in HELLO and WELCOME (a CUDA device UUID). */
    static final int DEVICE_ID = 16;

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

    /**
     * The frame type of a jkompute frame, or -1 for anything else (too short, other magic or protocol): such a frame
     * is not from a jkompute peer of this version and is dropped and counted, whoever sent it.
     */
    static int typeOrNone(DirectBuffer b, int offset, int length) {
        if (length < HEADER || b.getInt(offset, LE) != MAGIC || b.getByte(offset + 4) != PROTOCOL) {
            return -1;
        }
        return b.getByte(offset + 5);
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

    /**
     * A failed goodbye for a process stopped by a signal: sent from the shutdown hook with its own MAC instance and
     * the highest counter, so it is the link's last word whatever the link's threads were doing.
     */
    static Runnable goodbye(io.aeron.Publication p, byte[] key, String why, long a, long b) {
        return () -> {
            byte[] text = why.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            org.agrona.concurrent.UnsafeBuffer f = new org.agrona.concurrent.UnsafeBuffer(new byte[HEADER + text.length]);
            header(f, BYE, FLAG_FAILED, a, b, 0, Long.MAX_VALUE);
            f.putBytes(HEADER, text);
            sign(new io.jkompute.net.internal.Hmac(key), f, 0, text.length);
            for (int i = 0; i < 100 && p.offer(f, 0, f.capacity()) < 0; i++) {
                Thread.yield();
            }
        };
    }

    /** The bytes a message of {@code total} bytes takes in a BATCH frame: its size field, itself, padding to 8. */
    static int batchEntry(long total) {
        return (int) Math.min(Integer.MAX_VALUE, (4 + total + 7) & ~7L);
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

    static long counter(DirectBuffer b, int offset) {
        return b.getLong(offset + 32, LE);
    }

    static void counter(MutableDirectBuffer b, int offset, long counter) {
        b.putLong(offset + 32, counter, LE);
    }

    /** Signs the frame whose header is at {@code at} of {@code b} and whose payload follows it ({@code payload} bytes). */
    static void sign(io.jkompute.net.internal.Hmac mac, MutableDirectBuffer b, int at, int payload) {
        mac.update(b, at, SIGNED).update(b, at + HEADER, payload).finish(b, at + MAC_AT);
    }

    /** Signs a header at 0 of {@code header} whose payload is {@code payload[0, n)} (sent as a second buffer). */
    static void sign(io.jkompute.net.internal.Hmac mac, MutableDirectBuffer header, DirectBuffer payload, int n) {
        mac.update(header, 0, SIGNED).update(payload, 0, n).finish(header, MAC_AT);
    }

    /** Whether the frame at {@code offset} (header and payload, {@code length} bytes in all) carries a valid MAC. */
    static boolean verify(io.jkompute.net.internal.Hmac mac, DirectBuffer b, int offset, int length) {
        return mac.update(b, offset, SIGNED).update(b, offset + HEADER, length - HEADER).matches(b, offset + MAC_AT);
    }

    /**
     * Why a frame of an established link is refused, or null when it may be acted on: it must come from the Aeron
     * session the link is pinned to, carry the MAC of the link's key for this direction ({@code in}, null before the
     * handshake) and a counter above the last one accepted. The one gate both ends pass every frame through.
     */
    static String refusal(io.jkompute.net.internal.Hmac in, int session, int pinnedSession, long lastCounter,
            DirectBuffer b, int offset, int length, String peer) {
        if (in == null || session != pinnedSession) {
            return "a frame from an Aeron session other than the linked " + peer + "'s";
        }
        if (!verify(in, b, offset, length)) {
            return "a frame whose MAC does not match the link's key";
        }
        long counter = counter(b, offset);
        return counter <= lastCounter ? "a replayed or reordered frame (counter " + counter + " after " + lastCounter
                + ")" : null;
    }

    /** {@code host} for a channel: "0.0.0.0" and "" become localhost (as GXF's default addresses mean). */
    static String connectHost(String address) {
        return address == null || address.isBlank() || address.equals("0.0.0.0") ? "127.0.0.1" : address;
    }

    static String udp(String host, long port) {
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return "aeron:udp?endpoint=" + h + ":" + port;
    }
}

package io.jkompute.net;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Several small messages in one link frame (type {@link Frames#BATCH}), so that one Aeron frame, one MAC and one
 * receiver wake-up carry as many messages as fit: {@code a} = the first message's sequence number, {@code b} = the
 * number of messages; the payload is, per message in order, {@code u32 bytes} and the message ({@link WireFormat}).
 * A batch lies in one Aeron frame ({@code maxPayloadLength}), so it never needs reassembly.
 *
 * <p>The receiver checks the whole layout ({@link #check}) against its limits before it allocates anything or
 * stages a single message, so a malformed batch is refused whole.
 */
final class Batch {
    /** Bytes in front of each message in the payload. */
    static final int ENTRY = 4;

    private Batch() {
    }

    /**
     * Appends one message of {@code n} bytes (from {@code src} at {@code at}) to the payload being built in
     * {@code frame} after its header, {@code used} payload bytes so far; returns the payload bytes after it.
     */
    static int append(MutableDirectBuffer frame, int used, DirectBuffer src, int at, int n) {
        int p = Frames.HEADER + used;
        frame.putInt(p, n, Frames.LE);
        frame.putBytes(p + ENTRY, src, at, n);
        return used + ENTRY + n;
    }

    /** Whether a message of {@code n} bytes still fits a batch of {@code used} payload bytes and at most {@code room}. */
    static boolean fits(int used, int n, int room) {
        return (long) used + ENTRY + n <= room;
    }

    /**
     * Checks the layout of a batch frame of {@code length} bytes (header included) at {@code offset}: a count of at
     * least one, every message at least a WireFormat header and at most {@code maxMessageBytes}, inside the frame,
     * and the entries ending exactly at the frame's end; returns the count. Throws
     * {@link WireFormat.FormatException} naming what is wrong; nothing is allocated. Message {@code i} then lies
     * after its {@code u32} length, the entries following each other from the end of the frame header.
     */
    static int check(DirectBuffer b, int offset, int length, long maxMessageBytes) {
        long count = Frames.b(b, offset);
        int payload = length - Frames.HEADER;
        if (count < 1 || count > payload / (ENTRY + WireFormat.HEADER_FIXED)) {
            throw new WireFormat.FormatException("a batch of " + payload + " bytes declares " + count + " messages");
        }
        int pos = offset + Frames.HEADER;
        int end = offset + length;
        for (int i = 0; i < count; i++) {
            if (end - pos < ENTRY) {
                throw new WireFormat.FormatException("message " + (i + 1) + " of a batch of " + count
                        + " lies outside the frame");
            }
            long n = b.getInt(pos, Frames.LE) & 0xFFFF_FFFFL;
            if (n < WireFormat.HEADER_FIXED || n > maxMessageBytes || n > end - pos - ENTRY) {
                throw new WireFormat.FormatException("message " + (i + 1) + " of a batch of " + count + " declares "
                        + n + " bytes with " + (end - pos - ENTRY) + " left in the frame (" + WireFormat.HEADER_FIXED
                        + " to " + maxMessageBytes + " taken)");
            }
            pos += ENTRY + (int) n;
        }
        if (pos != end) {
            throw new WireFormat.FormatException("a batch of " + count + " messages leaves " + (end - pos)
                    + " bytes of its frame unused");
        }
        return (int) count;
    }
}

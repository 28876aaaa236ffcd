package io.jkompute.net;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Transmitter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Test codelet: receives one message per tick and checks its "seq" grows (strictly by one unless {@code gaps} is
 * true); forwards it on {@code transmitter} when given (a relay); {@code delay_ms} sleeps per tick (a slow
 * receiver); {@code keep: N} holds the last N messages past their tick and checks their payloads again at stop (a
 * graph that keeps what it received: nothing it holds may change). Prints "RECEIVING" with the first message (a
 * test that acts on a running link waits for it) and "SEQ last=… count=…" at stop.
 */
public class SeqRx extends CodeletAdapter {
    private Receiver rx;
    private Transmitter tx;
    private boolean gaps;
    private boolean pattern;
    private long delayMs;
    private final java.util.ArrayDeque<Message> kept = new java.util.ArrayDeque<>();
    private int keep;
    private long last;
    private long count;
    private io.jkompute.graph.std.BooleanSchedulingTerm until;

    @Override
    public void start() {
        rx = receiver(param("receiver"));
        tx = params().containsKey("transmitter") ? transmitter(param("transmitter")) : null;
        gaps = params().containsKey("gaps") && Boolean.parseBoolean(param("gaps"));
        pattern = params().containsKey("pattern") && Boolean.parseBoolean(param("pattern"));
        delayMs = params().containsKey("delay_ms") ? longParam("delay_ms") : 0;
        keep = params().containsKey("keep") ? (int) longParam("keep") : 0;
        until = params().containsKey("until_closed")
                ? component(param("until_closed"), io.jkompute.graph.std.BooleanSchedulingTerm.class) : null;
    }

    @Override
    public void tick() throws Exception {
        Message m = rx.receive();
        if (m == null && until != null) {
            if (((UcxReceiver) rx).peerClosed() && rx.size() == 0 && rx.backSize() == 0) {
                until.disableTick();
            }
            return;
        }
        if (m == null) {
            throw new IllegalStateException("no message at tick " + executionCount());
        }
        long seq = m.get(HostTensor.class, "seq").data().get(ValueLayout.JAVA_LONG, 0);
        if (gaps ? seq <= last : seq != last + 1) {
            throw new IllegalStateException("message " + seq + " after " + last + " (lost or reordered)");
        }
        check(m, seq);
        if (keep > 0) {
            kept.addLast(m.retain());
            if (kept.size() > keep) {
                kept.removeFirst().release();
            }
        }
        last = seq;
        if (count++ == 0) {
            System.out.println("RECEIVING");
        }
        if (tx != null) {
            tx.publish(m);
        }
        if (delayMs > 0) {
            Thread.sleep(delayMs);
        }
    }

    private void check(Message m, long seq) {
        HostTensor p = m.get(HostTensor.class, "payload");
        if (p != null) {
            long b = p.data().byteSize();
            if (p.data().get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != seq
                    || p.data().get(ValueLayout.JAVA_BYTE, b - 1) != (byte) seq) {
                throw new IllegalStateException("payload of message " + seq + " corrupted");
            }
            long at = pattern ? patternMismatch(p.data(), seq, 8, b - 1) : -1;
            if (at >= 0) {
                throw new IllegalStateException("payload of message " + seq + " differs at byte " + at);
            }
        }
    }

    /*
     * Byte i of message n's payload with pattern: true (SeqTx writes, SeqRx checks) is (i·31 + n·7 + i/4096) mod 256:
     * it differs per message and per 4 KiB block. Within block k that is (j·31 + c) mod 256 for j = i mod 4096 and
     * c = n·7 + k, which is TILE[j + c·223 mod 256] (223 is 31's inverse mod 256): each block is one slice of TILE,
     * written and compared at memcpy speed.
     */
    private static final int BLOCK = 4096;
    private static final MemorySegment TILE = tile();

    private static MemorySegment tile() {
        MemorySegment t = java.lang.foreign.Arena.global().allocate(BLOCK + 256);
        for (int i = 0; i < t.byteSize(); i++) {
            t.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
        }
        return t;
    }

    private static long tileOffset(long n, long block) {
        return ((n * 7 + block) * 223) & 255;
    }

    /** Writes message {@code n}'s pattern into all of {@code p}. */
    static void fillPattern(MemorySegment p, long n) {
        for (long from = 0; from < p.byteSize(); from += BLOCK) {
            long len = Math.min(BLOCK, p.byteSize() - from);
            MemorySegment.copy(TILE, tileOffset(n, from / BLOCK), p, from, len);
        }
    }

    /** The first byte in [from, to) of {@code p} that is not message {@code n}'s pattern, or −1. */
    static long patternMismatch(MemorySegment p, long n, long from, long to) {
        for (long at = from; at < to; ) {
            long block = at / BLOCK;
            long end = Math.min((block + 1) * BLOCK, to);
            long t = tileOffset(n, block) + at - block * BLOCK;
            long m = MemorySegment.mismatch(p, at, end, TILE, t, t + end - at);
            if (m >= 0) {
                return at + m;
            }
            at = end;
        }
        return -1;
    }

    @Override
    public void stop() {
        if (keep > 0) {
            for (Message m : kept) {
                check(m, m.get(HostTensor.class, "seq").data().get(ValueLayout.JAVA_LONG, 0));
                m.release();
            }
            System.out.println("KEPT " + kept.size() + " unchanged");
            kept.clear();
        }
        System.out.println("SEQ last=" + last + " count=" + count);
    }
}

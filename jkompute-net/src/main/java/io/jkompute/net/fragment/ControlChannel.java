package io.jkompute.net.fragment;

import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.jkompute.net.AeronTransport;
import io.jkompute.net.NetSecret;
import io.jkompute.net.internal.Hmac;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The driver's and workers' control plane over Aeron UDP: one subscription on this side's endpoint, one
 * publication per peer endpoint. Messages are {@link ControlMessage}s (reassembled when larger than a frame) in an
 * authenticated envelope, little-endian:
 * <pre>
 * u32 magic 0x54434B4A ("JKCT")  u8 version 1  u8[3] 0
 * u64 sender nonce (random per process)  u64 counter (grows by one per message of that sender)  i64 time (ms)
 * u16 recipient bytes  recipient (UTF-8: "driver" or the worker's id)  u32 body bytes  body (ControlMessage)
 * u8 mac[32]   HMAC-SHA256 of everything before it, keyed from the shared secret ({@link NetSecret})
 * </pre>
 * A message is taken only when its MAC matches, it names this side as its recipient, its counter is above the last
 * one taken from that sender (no replay) and its time is within {@value #WINDOW_MS_DEFAULT} ms of this host's
 * clock (a message recorded in an earlier run is refused). Anything else is dropped and counted
 * ({@link #rejected()}); a message that passes these checks but does not decode is a protocol violation of a
 * genuine peer, given to the caller as such. Uses the JVM's shared embedded media driver ({@link AeronTransport},
 * the one the UCX components use).
 */
final class ControlChannel implements AutoCloseable {
    static final int STREAM = 0x6a6b6601;
    static final int MAGIC = 0x54434B4A;
    static final int VERSION = 1;
    static final long WINDOW_MS_DEFAULT = 120_000;
    private static final long WINDOW_MS = Long.getLong("jkompute.net.controlWindowMs", WINDOW_MS_DEFAULT);
    private static final int FIXED = 4 + 4 + 8 + 8 + 8 + 2;
    /** Control messages are small; statistics of a large graph still fit (a message may be 1/8 of a term). */
    private static final String TERM = "|term-length=1m";
    private static final int MAX_MESSAGE = 128 * 1024;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    /** What arrived: a message from a genuine peer, or a genuine peer's message that did not decode. */
    sealed interface Received permits Taken, Violation {
    }

    record Taken(Control message) implements Received {
    }

    record Violation(String error) implements Received {
    }

    private final AeronTransport transport;
    private final Aeron aeron;
    private final Subscription subscription;
    private final FragmentAssembler assembler;
    private final Map<String, Publication> publications = new ConcurrentHashMap<>();
    private final String self;
    private final byte[] key;
    private final Hmac verifier;
    private final Hmac signer;
    private final long nonce = new SecureRandom().nextLong();
    private long counter;
    private final Map<Long, Long> lastCounter = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
            return size() > 4096;
        }
    };
    private volatile long rejected;
    private volatile String lastRejection;
    private volatile Consumer<Received> handler = m -> { };

    /**
     * Listens on {@code host:port} (port 0 is not allowed: the peer must know it) as {@code self} ("driver" or a
     * worker's id): messages naming another recipient are refused.
     */
    ControlChannel(String bindEndpoint, String self) {
        this.self = self;
        this.key = Hmac.derive(NetSecret.get().key(), "jkompute-control");
        this.verifier = new Hmac(key);
        this.signer = new Hmac(key);
        transport = AeronTransport.acquire();
        try {
            aeron = transport.aeron();
            subscription = aeron.addSubscription("aeron:udp?endpoint=" + bindEndpoint + TERM, STREAM);
        } catch (RuntimeException e) {
            transport.release();
            throw e;
        }
        FragmentHandler h = (buffer, offset, length, header) -> {
            Received r = open(buffer, offset, length);
            if (r != null) {
                handler.accept(r);
            }
        };
        assembler = new FragmentAssembler(h);
    }

    /** The envelope's checks; null (and counted) when the message is not from a genuine peer for this side. */
    private Received open(DirectBuffer b, int offset, int length) {
        if (length < FIXED + 4 + Hmac.BYTES || length > MAX_MESSAGE || b.getInt(offset, LE) != MAGIC
                || b.getByte(offset + 4) != VERSION) {
            return reject("not a jkompute control message of version " + VERSION + " (" + length + " bytes)");
        }
        int macAt = offset + length - Hmac.BYTES;
        if (!verifier.update(b, offset, length - Hmac.BYTES).matches(b, macAt)) {
            return reject("a message whose MAC does not match this host's secret (" + NetSecret.get().source() + ")");
        }
        long sender = b.getLong(offset + 8, LE);
        long count = b.getLong(offset + 16, LE);
        long time = b.getLong(offset + 24, LE);
        int toLen = Short.toUnsignedInt(b.getShort(offset + 32, LE));
        int bodyAt = offset + FIXED + toLen + 4;
        if (bodyAt > macAt) {
            return new Violation("control message with a recipient of " + toLen + " bytes overruns its frame");
        }
        String to = b.getStringWithoutLengthUtf8(offset + FIXED, toLen);
        if (!to.equals(self)) {
            return reject("a message for '" + to + "', not for this side ('" + self + "')");
        }
        long skew = Math.abs(System.currentTimeMillis() - time);
        if (skew > WINDOW_MS) {
            return reject("a message " + skew + " ms away from this host's clock (at most " + WINDOW_MS
                    + " ms: an old message replayed, or the hosts' clocks differ)");
        }
        Long last = lastCounter.get(sender);
        if (last != null && count <= last) {
            return reject("a replayed message (counter " + count + " after " + last + ")");
        }
        lastCounter.put(sender, count);
        int bodyLen = b.getInt(bodyAt - 4, LE);
        if (bodyLen < 0 || bodyAt + bodyLen != macAt) {
            return new Violation("control message body of " + bodyLen + " bytes does not fill its frame");
        }
        byte[] body = new byte[bodyLen];
        b.getBytes(bodyAt, body);
        try {
            return new Taken(Control.decode(ControlMessage.decode(body, 0, bodyLen)));
        } catch (RuntimeException e) {
            return new Violation("control message does not decode: " + e.getMessage());
        }
    }

    private Received reject(String why) {
        rejected++;
        lastRejection = why;
        return null;
    }

    /** Messages dropped because they were not from a genuine peer for this side. */
    long rejected() {
        return rejected;
    }

    /** Why the last one was dropped. */
    String lastRejection() {
        return lastRejection;
    }

    /** Polls received messages into {@code handler}; returns how many fragments were read. */
    int poll(Consumer<Received> handler) {
        this.handler = handler;
        return subscription.poll(assembler, 16);
    }

    /** Opens (once) a publication to a peer's endpoint. */
    void open(String endpoint) {
        publications.computeIfAbsent(endpoint, e -> aeron.addPublication("aeron:udp?endpoint=" + e + TERM, STREAM));
    }

    boolean connected(String endpoint) {
        Publication p = publications.get(endpoint);
        return p != null && p.isConnected();
    }

    /**
     * Sends to the peer at {@code endpoint} known as {@code to}; false when not connected yet or back pressured (the
     * caller retries or gives up).
     */
    synchronized boolean send(String endpoint, String to, Control m) {
        open(endpoint);
        Publication p = publications.get(endpoint);
        UnsafeBuffer f = seal(to, m.encode(), System.currentTimeMillis());
        int length = f.capacity();
        for (int i = 0; i < 3; i++) {
            long r = p.offer(f, 0, length);
            if (r > 0) {
                return true;
            }
            if (r == Publication.NOT_CONNECTED || r == Publication.CLOSED) {
                return false;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    /** The envelope of {@code m} for {@code to}, numbered and signed (the caller holds this channel's lock). */
    synchronized UnsafeBuffer seal(String to, ControlMessage m, long timeMs) {
        byte[] body = m.encode();
        byte[] recipient = to.getBytes(StandardCharsets.UTF_8);
        int length = FIXED + recipient.length + 4 + body.length + Hmac.BYTES;
        if (recipient.length > 0xFFFF || length > MAX_MESSAGE) {
            throw new IllegalArgumentException("control message of " + length + " bytes is larger than "
                    + MAX_MESSAGE);
        }
        UnsafeBuffer f = new UnsafeBuffer(new byte[length]);
        f.putInt(0, MAGIC, LE);
        f.putByte(4, (byte) VERSION);
        f.putLong(8, nonce, LE);
        f.putLong(16, ++counter, LE);
        f.putLong(24, timeMs, LE);
        f.putShort(32, (short) recipient.length, LE);
        f.putBytes(FIXED, recipient);
        f.putInt(FIXED + recipient.length, body.length, LE);
        f.putBytes(FIXED + recipient.length + 4, body);
        signer.update(f, 0, length - Hmac.BYTES).finish(f, length - Hmac.BYTES);
        return f;
    }

    void closePeer(String endpoint) {
        Publication p = publications.remove(endpoint);
        if (p != null) {
            p.close();
        }
    }

    @Override
    public void close() {
        try {
            publications.values().forEach(Publication::close);
            subscription.close();
        } finally {
            transport.release();
        }
    }
}

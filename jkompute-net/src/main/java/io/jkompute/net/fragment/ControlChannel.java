package io.jkompute.net.fragment;

import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.jkompute.net.AeronTransport;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The driver's and workers' control plane over Aeron UDP: one subscription on this side's endpoint, one
 * publication per peer endpoint. Messages are {@link ControlMessage}s (reassembled when larger than a frame).
 * Uses the JVM's shared embedded media driver ({@link AeronTransport}, the one the UCX components use).
 */
final class ControlChannel implements AutoCloseable {
    static final int STREAM = 0x6a6b6601;
    /** Control messages are small; statistics of a large graph still fit (a message may be 1/8 of a term). */
    private static final String TERM = "|term-length=1m";

    private final AeronTransport transport;
    private final Aeron aeron;
    private final Subscription subscription;
    private final FragmentAssembler assembler;
    private final Map<String, Publication> publications = new ConcurrentHashMap<>();
    private final UnsafeBuffer sendBuffer = new UnsafeBuffer(new byte[0]);
    private volatile Consumer<ControlMessage> handler = m -> { };

    /** Listens on {@code host:port} (port 0 is not allowed: the peer must know it). */
    ControlChannel(String bindEndpoint) {
        transport = AeronTransport.acquire();
        try {
            aeron = transport.aeron();
            subscription = aeron.addSubscription("aeron:udp?endpoint=" + bindEndpoint + TERM, STREAM);
        } catch (RuntimeException e) {
            transport.release();
            throw e;
        }
        FragmentHandler h = (buffer, offset, length, header) -> {
            byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            handler.accept(ControlMessage.decode(bytes, 0, length));
        };
        assembler = new FragmentAssembler(h);
    }

    /** Polls received messages into {@code handler}; returns how many fragments were read. */
    int poll(Consumer<ControlMessage> handler) {
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

    /** Sends to a peer; false when not connected yet or back pressured (the caller retries or gives up). */
    synchronized boolean send(String endpoint, ControlMessage m) {
        open(endpoint);
        Publication p = publications.get(endpoint);
        byte[] bytes = m.encode();
        sendBuffer.wrap(bytes);
        for (int i = 0; i < 3; i++) {
            long r = p.offer(sendBuffer, 0, bytes.length);
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

package io.jkompute.net.fragment;

import io.jkompute.net.ChildClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aeron.Publication;
import io.jkompute.graph.StopReason;
import io.jkompute.net.AeronTransport;
import io.jkompute.net.fragment.ControlMessage.Type;
import io.jkompute.net.internal.Hmac;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The control plane against a third party on loopback with its own Aeron client: forged, replayed, misdirected,
 * stale and malformed control messages are dropped and counted; a genuine peer's undecodable message is a protocol
 * violation; and a fragmented app under a stream of forged REGISTER, FAILED, DONE and STOP messages runs to its
 * end with its data intact.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ControlInjectionTest {
    @BeforeAll
    static void workers() {
        ChildClasses.startChildrenFromArchive();
    }

    private static final String RAW = "aeron:udp?endpoint=127.0.0.1:";

    private static List<ControlChannel.Received> drain(ControlChannel ch, int expect) throws InterruptedException {
        List<ControlChannel.Received> got = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline && got.size() < expect) {
            ch.poll(got::add);
            Thread.sleep(1);
        }
        Thread.sleep(200);
        ch.poll(got::add);
        return got;
    }

    private static void offer(Publication p, UnsafeBuffer f) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (p.offer(f, 0, f.capacity()) < 0) {
            assertTrue(System.nanoTime() < deadline, "could not send");
            Thread.sleep(1);
        }
    }

    @Test
    void replayedMisdirectedStaleForgedAndMalformedMessagesAreRefused() throws Exception {
        int port = FragmentDriverTest.freePort();
        AeronTransport t = AeronTransport.acquire();
        try (ControlChannel driver = new ControlChannel("127.0.0.1:" + port, "driver");
             ControlChannel worker = new ControlChannel("127.0.0.1:" + FragmentDriverTest.freePort(), "w1")) {
            Publication raw = t.aeron().addPublication(RAW + port + "|term-length=1m", ControlChannel.STREAM);
            try {
                ControlMessage stop = ControlMessage.of(Type.FAILED, "id", "w1", "fragment", "rx", "phase", "run", "error",
                        "x");
                UnsafeBuffer genuine = worker.seal("driver", stop, System.currentTimeMillis());
                offer(raw, genuine);
                offer(raw, genuine); // the same bytes again: a replay
                offer(raw, worker.seal("w2", stop, System.currentTimeMillis())); // for another process
                offer(raw, worker.seal("driver", stop, System.currentTimeMillis() - 600_000)); // recorded long ago
                UnsafeBuffer forged = worker.seal("driver", stop, System.currentTimeMillis());
                forged.putByte(forged.capacity() - 1, (byte) (forged.getByte(forged.capacity() - 1) ^ 1));
                offer(raw, forged); // MAC does not match
                offer(raw, new UnsafeBuffer("REGISTER\nid=mallory".getBytes(StandardCharsets.UTF_8))); // no envelope
                // an envelope signed with another key (the attacker's own secret)
                UnsafeBuffer other = worker.seal("driver", stop, System.currentTimeMillis());
                new Hmac(new byte[32]).update(other, 0, other.capacity() - Hmac.BYTES)
                        .finish(other, other.capacity() - Hmac.BYTES);
                offer(raw, other);
                List<ControlChannel.Received> got = drain(driver, 1);
                assertEquals(1, got.size(), got.toString());
                assertInstanceOf(ControlChannel.Taken.class, got.getFirst());
                assertEquals(new Control.Failed("w1", "rx", "run", "x"), ((ControlChannel.Taken) got.getFirst()).message());
                assertEquals(6, driver.rejected(), driver.lastRejection());

                // a genuine peer whose message does not decode: a violation, reported as such
                offer(raw, sealRawBody(worker, "NOT_A_TYPE\nk=v"));
                List<ControlChannel.Received> v = drain(driver, 1);
                assertEquals(1, v.size(), v.toString());
                assertInstanceOf(ControlChannel.Violation.class, v.getFirst());
            } finally {
                raw.close();
            }
        } finally {
            t.release();
        }
    }

    /** A correctly signed envelope whose body is {@code body} (what a buggy genuine peer could send). */
    private static UnsafeBuffer sealRawBody(ControlChannel ch, String body) {
        UnsafeBuffer f = ch.seal("driver", ControlMessage.of(Type.HEARTBEAT, "x", "y"), System.currentTimeMillis());
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        // rebuild with the same header fields and a new body, re-signed with the control key
        int toLen = Short.toUnsignedInt(f.getShort(32, java.nio.ByteOrder.LITTLE_ENDIAN));
        int fixed = 34 + toLen;
        UnsafeBuffer g = new UnsafeBuffer(new byte[fixed + 4 + b.length + Hmac.BYTES]);
        g.putBytes(0, f, 0, fixed);
        g.putInt(fixed, b.length, java.nio.ByteOrder.LITTLE_ENDIAN);
        g.putBytes(fixed + 4, b);
        g.putLong(16, Long.MAX_VALUE - 1, java.nio.ByteOrder.LITTLE_ENDIAN);
        new Hmac(Hmac.derive(io.jkompute.net.NetSecret.get().key(), "jkompute-control"))
                .update(g, 0, g.capacity() - Hmac.BYTES).finish(g, g.capacity() - Hmac.BYTES);
        return g;
    }

    @Test
    void aFragmentedAppUnderForgedControlMessagesRunsToItsEnd() throws Exception {
        int port = FragmentDriverTest.freePort();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8);
        FragmentDriver d = new FragmentDriver(new FragmentDriver.Options(
                FragmentPlanTest.APPS.resolve("fragments-ping.yaml"), "127.0.0.1", port, List.of("tx", "rx"),
                List.of(), List.of(), Duration.ofSeconds(60), false, ps, ps));
        CompletableFuture<FragmentDriver.AppResult> result = CompletableFuture.supplyAsync(d::run);
        AeronTransport t = AeronTransport.acquire();
        Publication raw = t.aeron().addPublication(RAW + port + "|term-length=1m", ControlChannel.STREAM);
        // the attacker's own channel: right format, wrong secret
        Hmac wrong = new Hmac(new byte[32]);
        int sent = 0;
        try {
            long n = 0;
            while (!result.isDone()) {
                for (ControlMessage m : List.of(
                        ControlMessage.of(Type.REGISTER, "id", "mallory", "control", "127.0.0.1:1", "address",
                                "127.0.0.1", "fragments", "rx", "ports", "1,2", "digest", "0"),
                        ControlMessage.of(Type.FAILED, "id", "x", "fragment", "rx", "phase", "run", "error", "forged"),
                        ControlMessage.of(Type.DONE, "id", "x", "fragment", "rx", "reason", "COMPLETED"),
                        ControlMessage.of(Type.STOP, "abort", "true"))) {
                    byte[] body = m.encode();
                    byte[] to = "driver".getBytes(StandardCharsets.UTF_8);
                    UnsafeBuffer f = new UnsafeBuffer(new byte[34 + to.length + 4 + body.length + Hmac.BYTES]);
                    f.putInt(0, ControlChannel.MAGIC, java.nio.ByteOrder.LITTLE_ENDIAN);
                    f.putByte(4, (byte) ControlChannel.VERSION);
                    f.putLong(8, 77, java.nio.ByteOrder.LITTLE_ENDIAN);
                    f.putLong(16, ++n, java.nio.ByteOrder.LITTLE_ENDIAN);
                    f.putLong(24, System.currentTimeMillis(), java.nio.ByteOrder.LITTLE_ENDIAN);
                    f.putShort(32, (short) to.length, java.nio.ByteOrder.LITTLE_ENDIAN);
                    f.putBytes(34, to);
                    f.putInt(34 + to.length, body.length, java.nio.ByteOrder.LITTLE_ENDIAN);
                    f.putBytes(38 + to.length, body);
                    wrong.update(f, 0, f.capacity() - Hmac.BYTES).finish(f, f.capacity() - Hmac.BYTES);
                    if (raw.offer(f, 0, f.capacity()) > 0) {
                        sent++;
                    }
                }
                Thread.sleep(10);
            }
            FragmentDriver.AppResult r = result.get();
            String out = log.toString(StandardCharsets.UTF_8);
            assertEquals(0, r.exitCode(), r.error() + "\n" + out);
            assertEquals(StopReason.COMPLETED, r.fragment("rx").reason(), out);
            assertEquals(100, r.statistics().entity("rx").messagesIn(), out);
            assertTrue(sent > 10, "the attack reached the driver: " + sent);
            assertTrue(d.rejectedMessages() > 0, "the driver counted the forged messages: " + out);
            assertTrue(out.contains("were not from this app's processes"), out);
            System.out.printf("control attack: %d forged messages offered, %d counted as rejected by the driver%n",
                    sent, d.rejectedMessages());
        } finally {
            raw.close();
            t.release();
        }
    }
}

package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aeron.Publication;
import io.jkompute.net.internal.Hmac;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A third party on loopback with its own Aeron client and without the secret attacks a running link from both
 * sides: forged HELLO, DATA (the next message, and one declaring 2^40 bytes), BATCH (the next two messages), SHARED (a
 * message in a shared slot),
 * HEARTBEAT and BYE to the receiver;
 * forged WELCOME, CREDIT and BYE to the transmitter's return path; and frames that are not jkompute frames at all.
 * Every one is dropped and counted at the end it reached, the run's data arrive intact and in order, and both
 * processes exit 0.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LinkInjectionTest {
    static final Pattern REJECTED = Pattern.compile("(\\d+) foreign frames rejected");

    @Test
    void forgedFramesFromAThirdPartyAreDroppedCountedAndChangeNothing() throws Exception {
        int port = Jvm.freePort();
        int back = Jvm.freePort();
        int n = 300;
        Hmac wrong = new Hmac(Hmac.derive("not the secret".getBytes(StandardCharsets.UTF_8), "attacker"));
        AeronTransport attacker = AeronTransport.acquire();
        List<Publication> pubs = new ArrayList<>();
        try (Jvm rx = Jvm.graph("rx", TwoProcessPingTest.RX, "--param", "rx/signal/port=" + port,
                "--param", "rx/count/count=" + n, "--param", "rx/signal/capacity=2",
                "--param", "rx/seq/codelet_params={receiver: signal, delay_ms: 3}")) {
            rx.awaitLine("READY", 120);
            Publication toRx = attacker.aeron().addPublication(Frames.udp("127.0.0.1", port), Frames.DATA_STREAM);
            Publication toTx = attacker.aeron().addPublication(Frames.udp("127.0.0.1", back), Frames.CONTROL_STREAM);
            pubs.add(toRx);
            pubs.add(toTx);
            try (Jvm tx = Jvm.graph("tx", TwoProcessPingTest.TX, "--param", "tx/signal/port=" + port,
                    "--param", "tx/count/count=" + n, "--param", "tx/signal/local_port=" + back)) {
                long attacks = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
                while (tx.process.isAlive() || rx.process.isAlive()) {
                    for (long seq = 1; seq <= 3; seq++) {
                        attacks += offer(toRx, frame(wrong, Frames.HELLO, 0, 42, back, 0, 0, "mallory".getBytes()));
                        attacks += offer(toRx, frame(wrong, Frames.DATA, Frames.FLAG_LAST, seq * 50, 88, 0, seq * 7,
                                new byte[88]));
                        attacks += offer(toRx, frame(wrong, Frames.DATA, 0, seq * 50, 1L << 40, 0, seq * 7 + 1,
                                new byte[0]));
                        attacks += offer(toRx, frame(wrong, Frames.HEARTBEAT, 0, 1, 0, 0, seq * 7 + 2, new byte[0]));
                        attacks += offer(toRx, frame(wrong, Frames.SHARED, Frames.FLAG_LAST, seq * 50, 1 << 20, 0,
                                seq * 7 + 4, "/dev/shm/jkompute-aeron-1/link-0-0".getBytes()));
                        attacks += offer(toRx, frame(wrong, Frames.BATCH, 0, seq * 50, 2, 0, seq * 7 + 5,
                                forgedBatch()));
                        attacks += offer(toRx, frame(wrong, Frames.BYE, 0, n, 0, 0, seq * 7 + 3, new byte[0]));
                        attacks += offer(toRx, new UnsafeBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
                        attacks += offer(toTx, frame(wrong, Frames.CREDIT, 0, 1_000_000, 1_000_000, 0, seq * 9,
                                new byte[0]));
                        attacks += offer(toTx, frame(wrong, Frames.BYE, 0, n, n, 0, seq * 9 + 1, new byte[0]));
                        attacks += offer(toTx, frame(wrong, Frames.WELCOME, 0, 1000, 1, 0, 0, new byte[16]));
                    }
                    Thread.sleep(5);
                    if (System.nanoTime() > deadline) {
                        break;
                    }
                }
                assertEquals(0, tx.await(30), tx.output());
                assertEquals(0, rx.await(30), rx.output());
                assertTrue(attacks > 100, "the attack reached the link: " + attacks + " frames offered");
                assertEquals(List.of("SEQ last=" + n + " count=" + n), rx.lines("SEQ"), rx.output());
                String rxLink = rx.lines("LINK").getFirst();
                String txLink = tx.lines("LINK").getFirst();
                assertTrue(rxLink.contains(n + " sent, " + n + " delivered, 0 dropped"), rxLink);
                assertTrue(txLink.contains(n + " sent, " + n + " delivered, 0 dropped"), txLink);
                long rxRejected = rejected(rxLink);
                long txRejected = rejected(txLink);
                assertTrue(rxRejected > 0, "the receiver counted the forged frames: " + rxLink);
                assertTrue(txRejected > 0, "the transmitter counted the forged frames: " + txLink);
                System.out.printf("attack: %d forged frames offered; receiver rejected %d, transmitter %d%n",
                        attacks, rxRejected, txRejected);
            }
        } finally {
            pubs.forEach(Publication::close);
            attacker.release();
        }
    }

    /** Two entries of a BATCH frame, each declaring a header-only message. */
    private static byte[] forgedBatch() {
        UnsafeBuffer b = new UnsafeBuffer(new byte[2 * Frames.batchEntry(WireFormat.HEADER_FIXED)]);
        b.putInt(0, WireFormat.HEADER_FIXED, Frames.LE);
        b.putInt(Frames.batchEntry(WireFormat.HEADER_FIXED), WireFormat.HEADER_FIXED, Frames.LE);
        return b.byteArray();
    }

    static long rejected(String link) {
        Matcher m = REJECTED.matcher(link);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    static UnsafeBuffer frame(Hmac key, int type, int flags, long a, long b, long c, long counter, byte[] payload) {
        UnsafeBuffer f = new UnsafeBuffer(new byte[Frames.HEADER + payload.length]);
        Frames.header(f, 0, type, flags, a, b, c, counter);
        f.putBytes(Frames.HEADER, payload);
        Frames.sign(key, f, 0, payload.length);
        return f;
    }

    static int offer(Publication p, UnsafeBuffer f) {
        return p.offer(f, 0, f.capacity()) > 0 ? 1 : 0;
    }
}

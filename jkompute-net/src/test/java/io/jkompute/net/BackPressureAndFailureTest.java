package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Queue policies across the link, and a killed peer. */
class BackPressureAndFailureTest {
    static final String TX = TwoProcessPingTest.TX;
    static final String RX = TwoProcessPingTest.RX;
    static final String DRAIN = Jvm.file("src/test/resources/net/drain-rx.yaml");
    static final Pattern LINK = Pattern.compile("(\\d+) sent, (\\d+) delivered, (\\d+) dropped");

    static long[] counts(String link) {
        Matcher m = LINK.matcher(link);
        assertTrue(m.find(), link);
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))};
    }

    @Test
    void policy2SlowReceiverHoldsTheSenderBackAndLosesNothing() throws Exception {
        int port = Jvm.freePort();
        int n = 150;
        // a fast sender, a receiver of capacity 2 that sleeps 5 ms per message: without back-pressure across the
        // link its policy-2 queue would overflow and fail the run
        try (Jvm rx = Jvm.graph("rx", RX, "--param", "rx/signal/port=" + port, "--param", "rx/count/count=" + n,
                "--param", "rx/signal/capacity=2", "--param", "rx/seq/codelet_params={receiver: signal, delay_ms: 5}");
             Jvm tx = Jvm.graph("tx", TX, "--param", "tx/signal/port=" + port, "--param", "tx/count/count=" + n,
                     "--param", "tx/signal/capacity=4")) {
            assertEquals(0, tx.await(180), Jvm.outputs(tx, rx));
            assertEquals(0, rx.await(180), Jvm.outputs(rx, tx));
            assertEquals(List.of("SEQ last=" + n + " count=" + n), rx.lines("SEQ"), rx.output());
            long[] c = counts(tx.lines("LINK").getFirst());
            assertEquals(n, c[0]);
            assertEquals(n, c[1]);
            assertEquals(0, c[2]);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void policies0And1DropAtTheFullRemoteQueueAndCountExactly(int policy) throws Exception {
        int port = Jvm.freePort();
        int n = 300;
        try (Jvm rx = Jvm.graph("rx", DRAIN, "--param", "rx/signal/port=" + port,
                "--param", "rx/signal/policy=" + policy);
             Jvm tx = Jvm.graph("tx", TX, "--param", "tx/signal/port=" + port, "--param", "tx/count/count=" + n)) {
            assertEquals(0, tx.await(180), Jvm.outputs(tx, rx));
            assertEquals(0, rx.await(180), Jvm.outputs(rx, tx));
            long[] r = counts(rx.lines("LINK").getFirst());
            long[] t = counts(tx.lines("LINK").getFirst());
            assertEquals(n, r[0], "every message arrived");
            assertEquals(n, t[0]);
            assertTrue(r[2] > 0, "a slow receiver with capacity 2 drops: " + rx.output());
            assertEquals(r[0] - r[1], r[2], "dropped = sent − delivered");
            // the sender's view is the receiver's last report before the sender closed: it covers every message
            assertEquals(n, t[1] + t[2], "the sender saw every message arrive: " + tx.output());
            String seq = rx.lines("SEQ").getFirst();
            assertTrue(seq.endsWith("count=" + r[1]), seq + " vs " + rx.output());
            if (policy == 0) {
                assertTrue(seq.startsWith("SEQ last=" + n + " "), "drop-oldest keeps the newest: " + seq);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tx", "rx"})
    void aKilledPeerEndsTheOtherAppWithAClearErrorAndCounts(String victim) throws Exception {
        int port = Jvm.freePort();
        long n = 1_000_000;
        try (Jvm rx = Jvm.timed("rx", RX, "--param", "rx/signal/port=" + port, "--param", "rx/count/count=" + n,
                "--param", "rx/seq/codelet_params={receiver: signal, delay_ms: 1}");
             Jvm tx = Jvm.timed("tx", TX, "--param", "tx/signal/port=" + port, "--param", "tx/count/count=" + n)) {
            Jvm dead = victim.equals("tx") ? tx : rx;
            Jvm survivor = victim.equals("tx") ? rx : tx;
            rx.awaitLine("RECEIVING", 120);
            tx.awaitLine("READY", 120);
            Thread.sleep(300); // a few hundred messages, credits and heartbeats both ways
            long killed = System.nanoTime();
            dead.process.destroyForcibly();
            assertEquals(1, survivor.await(60), survivor.output());
            long ms = (System.nanoTime() - killed) / 1_000_000;
            String failed = survivor.lines("FAILED").getFirst();
            assertTrue(failed.contains("lost its link"), failed);
            assertTrue(failed.contains("delivered"), failed);
            Matcher silent = Pattern.compile("no heartbeat for (\\d+) ms").matcher(failed);
            assertTrue(silent.find(), failed);
            assertTrue(Long.parseLong(silent.group(1)) < 2000, "detected within 2 s: " + failed);
            long[] c = counts(failed);
            assertTrue(c[1] > 0, "messages went through before the kill: " + failed);
            System.out.println(victim + " killed; the other ended after " + ms + " ms: " + failed);
        }
    }
}

package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failures end both sides, with the truth: a receiver that ends first ends its sender with an error (every policy),
 * a failing receiver fails its sender with its reason, and a sender stopped by SIGTERM says goodbye (the receiver
 * fails at once, not after the heartbeat timeout) and removes its private Aeron folder.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FailureEndsRunsTest {
    static final String TX = TwoProcessPingTest.TX;
    static final String RX = TwoProcessPingTest.RX;

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void aReceiverThatEndsFirstEndsItsSenderWithAnError(int policy) throws Exception {
        int port = Jvm.freePort();
        // policies 0 and 1 drop when the queue is full (a receiver still starting up may miss a few): gaps allowed;
        // policy 2 holds the sender back, so every message arrives in order
        try (Jvm rx = Jvm.timed("rx", RX, "--param", "rx/signal/port=" + port, "--param", "rx/count/count=50",
                "--param", "rx/signal/capacity=64", "--param", "rx/signal/policy=" + policy,
                "--param", "rx/seq/codelet_params={receiver: signal, gaps: " + (policy != 2) + "}");
             Jvm tx = Jvm.timed("tx", TX, "--param", "tx/signal/port=" + port, "--param", "tx/count/count=100000000",
                     "--param", "tx/seq/codelet_params={transmitter: signal, bytes: 1024}")) {
            assertEquals(0, rx.await(120), rx.output());
            long rxEnded = System.nanoTime();
            assertEquals(1, tx.await(30), tx.output());
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - rxEnded);
            String failed = tx.lines("FAILED").getFirst();
            assertTrue(failed.contains("closed the link (its run ended) while messages were still to send")
                    || failed.contains("nothing has received on the link"), failed);
            assertTrue(ms < 10_000, "the sender ended " + ms + " ms after its receiver");
            System.out.println("policy " + policy + ": the sender ended " + ms + " ms after its receiver: " + failed);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void aHungReceiverEndsItsSenderWithinTheLinkTimeout(int policy) throws Exception {
        int port = Jvm.freePort();
        try (Jvm rx = Jvm.timed("rx", RX, "--param", "rx/signal/port=" + port, "--param", "rx/count/count=100000000",
                "--param", "rx/signal/policy=" + policy, "--param", "rx/seq/codelet_params={receiver: signal, "
                        + "delay_ms: 1, gaps: true}");
             Jvm tx = Jvm.timed("tx", TX, "--param", "tx/signal/port=" + port, "--param", "tx/count/count=100000000")) {
            rx.awaitLine("RECEIVING", 120);
            tx.awaitLine("READY", 120);
            Thread.sleep(300); // a few hundred messages, credits and heartbeats both ways
            long hung = System.nanoTime();
            signal("STOP", rx); // the process stays, its threads do not run: no credit, no heartbeat
            try {
                assertEquals(1, tx.await(30), tx.output());
            } finally {
                signal("CONT", rx);
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - hung);
            String failed = tx.lines("FAILED").getFirst();
            assertTrue(failed.contains("lost its link") && failed.contains("no heartbeat for"), failed);
            assertTrue(ms < 10_000, "the sender ended " + ms + " ms after its receiver hung");
            System.out.println("policy " + policy + ": receiver hung, the sender ended " + ms + " ms later: " + failed);
        }
    }

    private static void signal(String name, Jvm jvm) throws Exception {
        new ProcessBuilder("kill", "-" + name, Long.toString(jvm.process.pid())).inheritIO().start()
                .waitFor(5, TimeUnit.SECONDS);
    }

    @Test
    void aFailingReceiverFailsItsSenderWithItsReason() throws Exception {
        int port = Jvm.freePort();
        // policy 0, capacity 1 and a slow consumer drop messages; SeqRx without gaps allowed fails on the first gap
        try (Jvm rx = Jvm.timed("rx", RX, "--param", "rx/signal/port=" + port, "--param", "rx/count/count=100000",
                "--param", "rx/signal/capacity=1", "--param", "rx/signal/policy=0",
                "--param", "rx/seq/codelet_params={receiver: signal, delay_ms: 2}");
             Jvm tx = Jvm.timed("tx", TX, "--param", "tx/signal/port=" + port, "--param", "tx/count/count=100000")) {
            assertEquals(1, rx.await(120), rx.output());
            assertEquals(1, tx.await(30), tx.output());
            String failed = tx.lines("FAILED").getFirst();
            // the sender's error carries the receiver's own (a gap, or a tick that found its message dropped)
            assertTrue(failed.contains("the receiving side failed") && failed.contains("codelet 'rx/seq'"), failed);
        }
    }

    @Test
    void aSenderStoppedBySigtermSaysGoodbyeAndCleansUp() throws Exception {
        int port = Jvm.freePort();
        // the tests' long link timeout (15 s), not the product's 1.5 s: the goodbye must end the receiver long before
        // its timeout could, also on a loaded machine where a process's exit alone can take over a second
        try (Jvm rx = Jvm.graph("rx", RX, "--param", "rx/signal/port=" + port, "--param", "rx/count/count=100000000",
                "--param", "rx/seq/codelet_params={receiver: signal, delay_ms: 1}");
             Jvm tx = Jvm.graph("tx", TX, "--param", "tx/signal/port=" + port,
                     "--param", "tx/count/count=100000000")) {
            rx.awaitLine("RECEIVING", 120);
            tx.awaitLine("READY", 120);
            Thread.sleep(300); // a few hundred messages, credits and heartbeats both ways
            long stopped = System.nanoTime();
            tx.process.destroy(); // SIGTERM
            int txCode = tx.await(30); // also checks that its private Aeron folder is gone
            assertEquals(1, rx.await(30), rx.output());
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
            String failed = rx.lines("FAILED").getFirst();
            assertTrue(failed.contains("the sending side failed") && failed.contains("stopped by a signal"), failed);
            assertTrue(ms < Jvm.LINK_TIMEOUT_MS - 5_000, "the receiver ended " + ms
                    + " ms after the SIGTERM: by the goodbye, not its link timeout of " + Jvm.LINK_TIMEOUT_MS + " ms");
            assertTrue(txCode != 0, "a stopped sender does not exit 0: " + txCode);
            System.out.println("SIGTERM: the receiver ended " + ms + " ms later (sender exit " + txCode + "): "
                    + failed);
        }
    }

    /**
     * A link that fails after the graph loaded but before its run started (the link thread works from activation on)
     * ends the run as soon as it starts, with the link's error; the run used to wait forever for messages.
     */
    @Test
    void aLinkFailureBeforeTheRunEndsTheRunWhenItStarts() throws Exception {
        int port = Jvm.freePort();
        try (Graph g = Graph.loader().file(Path.of(RX)).param("rx/signal/port=" + port)
                .param("rx/count/count=1000").load()) {
            UcxReceiver rx = g.entities().stream().flatMap(e -> e.components().stream())
                    .filter(c -> c instanceof UcxReceiver).map(c -> (UcxReceiver) c).findFirst().orElseThrow();
            try (Jvm tx = Jvm.timed("tx", TX, "--param", "tx/signal/port=" + port,
                    "--param", "tx/count/count=100000000")) {
                tx.awaitLine("READY", 120);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (rx.linkStatistics().sent() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                tx.process.destroy(); // SIGTERM: the sender's goodbye says it failed, and the receiver records it
                assertTrue(tx.await(30) != 0, tx.output());
            }
            long t0 = System.nanoTime();
            g.runAsync();
            GraphException e = assertThrows(GraphException.class, () -> g.await(30, TimeUnit.SECONDS));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(e.getMessage().contains("lost its link") && e.getMessage().contains("stopped by a signal"),
                    e.getMessage());
            assertTrue(ms < 5_000, "the run ended " + ms + " ms after it started");
        }
    }
}

package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Two JVMs over loopback: every message arrives once and in order, with exact counts on both ends. */
class TwoProcessPingTest {
    static final String TX = Jvm.file("src/test/resources/net/seq-tx.yaml");
    static final String RX = Jvm.file("src/test/resources/net/seq-rx.yaml");

    @Test
    void pingAcrossTwoProcessesExactCountsAndOrder() throws Exception {
        int port = Jvm.freePort();
        int n = 500;
        try (Jvm rx = Jvm.graph("rx", RX, "--param", "rx/signal/port=" + port, "--param", "rx/count/count=" + n);
             Jvm tx = Jvm.graph("tx", TX, "--param", "tx/signal/port=" + port, "--param", "tx/count/count=" + n)) {
            assertEquals(0, tx.await(180), Jvm.outputs(tx, rx));
            assertEquals(0, rx.await(180), Jvm.outputs(rx, tx));
            assertEquals(List.of("SEQ last=" + n + " count=" + n), rx.lines("SEQ"), rx.output());
            String txLink = tx.lines("LINK").getFirst();
            String rxLink = rx.lines("LINK").getFirst();
            assertTrue(txLink.contains(n + " sent, " + n + " delivered, 0 dropped"), txLink);
            assertTrue(rxLink.contains(n + " sent, " + n + " delivered, 0 dropped"), rxLink);
        }
    }

    @Test
    void shippedGxfPingAppsRunUnchanged() throws Exception {
        int port = Jvm.freePort();
        // the shipped apps listen on 13337; other runs on this machine may use it, so only the port moves
        String apps = "../apps/distributed/";
        try (Jvm tx = Jvm.graph("tx", Jvm.file(apps + "ping-tx.yaml"), "--param", "tx/signal/port=" + port);
             Jvm rx = Jvm.graph("rx", Jvm.file(apps + "ping-rx.yaml"), "--param", "rx/signal/port=" + port)) {
            assertEquals(0, tx.await(180), Jvm.outputs(tx, rx));
            assertEquals(0, rx.await(180), Jvm.outputs(rx, tx));
            assertTrue(rx.lines("LINK").getFirst().contains("100 sent, 100 delivered, 0 dropped"), rx.output());
        }
    }

    @Test
    void busyPollingLinksDeliverEveryMessageOnce() throws Exception {
        int port = Jvm.freePort();
        // busy_poll_us only changes how the link threads wait; counts and order must be the same as without it
        String apps = "../apps/distributed/";
        try (Jvm tx = Jvm.graph("tx", Jvm.file(apps + "ping-tx.yaml"), "--param", "tx/signal/port=" + port,
                "--param", "ucx/context/busy_poll_us=500");
             Jvm rx = Jvm.graph("rx", Jvm.file(apps + "ping-rx.yaml"), "--param", "rx/signal/port=" + port,
                     "--param", "ucx/context/busy_poll_us=500")) {
            assertEquals(0, tx.await(180), Jvm.outputs(tx, rx));
            assertEquals(0, rx.await(180), Jvm.outputs(rx, tx));
            assertTrue(rx.lines("LINK").getFirst().contains("100 sent, 100 delivered, 0 dropped"), rx.output());
            assertTrue(tx.lines("LINK").getFirst().contains("100 sent, 100 delivered, 0 dropped"), tx.output());
        }
    }
}

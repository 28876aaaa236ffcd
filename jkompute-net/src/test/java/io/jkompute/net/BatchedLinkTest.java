package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Small messages travel several to a frame: a sender publishing 16 messages per tick, of payload sizes in turn from
 * none to more than a frame holds (those go out on their own, between batches), reaches the receiver with every
 * byte of every payload checked, in order, with exact counts on both ends, and the sender's statistics show that
 * batches carried the small ones.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class BatchedLinkTest {
    static final Pattern BATCHES = Pattern.compile("\\[(\\d+) in (\\d+) batch frames]");

    @Test
    void smallMessagesGoSeveralToAFrameExactlyAndInOrder() throws Exception {
        int port = Jvm.freePort();
        int ticks = 150;
        int perTick = 16;
        int n = ticks * perTick;
        // 0: the seq tensor alone; 1100 and 1300: around a frame's room on Aeron's default MTU (1408); 9000 and
        // 12000: more than a frame holds on this host's links (8 KiB MTU), so they go as DATA frames and split the
        // batches around them
        String sizes = "0,9,64,700,64,1100,64,64,300,1300,64,64,9000,9,64,64,12000";
        try (Jvm rx = Jvm.graph("rx", TwoProcessPingTest.RX, "--param", "rx/signal/port=" + port,
                "--param", "rx/count/count=" + n, "--param", "rx/signal/capacity=64",
                "--param", "rx/seq/codelet_params={receiver: signal, pattern: true}");
             Jvm tx = Jvm.graph("tx", TwoProcessPingTest.TX, "--param", "tx/signal/port=" + port,
                     "--param", "tx/count/count=" + ticks, "--param", "tx/signal/capacity=" + perTick,
                     "--param", "tx/seq/codelet_params={transmitter: signal, pattern: true, per_tick: " + perTick
                             + ", sizes: '" + sizes + "'}")) {
            assertEquals(0, tx.await(200), tx.output());
            assertEquals(0, rx.await(200), rx.output());
            assertEquals(List.of("SEQ last=" + n + " count=" + n), rx.lines("SEQ"), rx.output());
            String txLink = tx.lines("LINK").getFirst();
            String rxLink = rx.lines("LINK").getFirst();
            assertTrue(txLink.contains(n + " sent, " + n + " delivered, 0 dropped"), txLink);
            assertTrue(rxLink.contains(n + " sent, " + n + " delivered, 0 dropped"), rxLink);
            Matcher m = BATCHES.matcher(txLink);
            assertTrue(m.find(), "the sender batched: " + txLink);
            long batched = Long.parseLong(m.group(1));
            long frames = Long.parseLong(m.group(2));
            long large = (n / 17 + 1) * 4; // the 1100-, 1300-, 9000- and 12000-byte payloads of each round, at most
            assertTrue(batched >= n - large && batched < n, batched + " of " + n + " messages went in batches");
            assertTrue(frames < batched, frames + " frames carried " + batched + " messages");
        }
    }
}

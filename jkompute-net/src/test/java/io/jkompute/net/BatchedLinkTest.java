package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.Component;
import io.jkompute.graph.Entity;
import io.jkompute.graph.Graph;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Small messages a codelet publishes together cross a link in BATCH frames (one MAC and one frame for several), and
 * arrive as if each had come alone: in order, every byte of their payload checked, counted once on both ends.
 */
class BatchedLinkTest {
    private static final Pattern BATCHES = Pattern.compile("\\[(\\d+) in (\\d+) batches]");

    @Test
    @Timeout(120)
    void smallMessagesPublishedTogetherCrossInBatchesInOrderAndWhole() throws Exception {
        int port = TestPorts.free();
        int ticks = 50;
        int burst = 8;
        int n = ticks * burst;
        UcxTransmitter transmitter;
        UcxReceiver receiver;
        try (Graph rx = Graph.loader().file(Path.of(TwoProcessPingTest.RX)).param("rx/signal/port=" + port)
                .param("rx/signal/capacity=64").param("rx/count/count=" + n)
                .param("rx/seq/codelet_params={receiver: signal, pattern: true}").load();
             Graph tx = Graph.loader().file(Path.of(TwoProcessPingTest.TX)).param("tx/signal/port=" + port)
                     .param("tx/signal/capacity=" + burst).param("tx/count/count=" + ticks)
                     .param("tx/seq/codelet_params={transmitter: signal, bytes: 100, pattern: true, burst: " + burst
                             + "}").load()) {
            transmitter = component(tx, UcxTransmitter.class);
            receiver = component(rx, UcxReceiver.class);
            rx.runAsync();
            tx.runAsync();
            RunResult sent = tx.await(90, TimeUnit.SECONDS);
            RunResult received = rx.await(90, TimeUnit.SECONDS);
            assertEquals(StopReason.COMPLETED, sent.reason(), sent.toString());
            // SeqRx fails the run on a message out of order or a payload byte that is not the sender's
            assertEquals(StopReason.COMPLETED, received.reason(), received.toString());
        }
        // after closing, as the CLI reads them: the transmitter closed once the receiver confirmed every message
        LinkStatistics out = transmitter.linkStatistics();
        LinkStatistics in = receiver.linkStatistics();
        assertEquals(n, out.sent(), out.toString());
        assertEquals(n, out.delivered(), out.toString());
        assertEquals(n, in.sent(), in.toString());
        assertEquals(n, in.delivered(), in.toString());
        assertEquals(0, in.rejected(), in.toString());
        long[] sentIn = batches(out.link());
        long[] receivedIn = batches(in.link());
        assertEquals(sentIn[0], receivedIn[0], out + " / " + in);
        assertEquals(sentIn[1], receivedIn[1], out + " / " + in);
        // the first message of a tick finds the other seven staged: each batch holds two or more
        assertTrue(sentIn[1] >= 1 && sentIn[0] >= 2 * sentIn[1] && sentIn[0] <= n, out.toString());
    }

    /** {messages, frames} of a link's "[N in M batches]". */
    private static long[] batches(String link) {
        Matcher m = BATCHES.matcher(link);
        assertTrue(m.find(), "no batches in " + link);
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    private static <T> T component(Graph g, Class<T> type) {
        for (Entity e : g.entities()) {
            for (Component c : e.components()) {
                if (type.isInstance(c)) {
                    return type.cast(c);
                }
            }
        }
        throw new AssertionError("no " + type.getSimpleName());
    }
}

package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Two JVMs on one host: large messages go through the transmitter's shared slots (decoded in place by the receiver,
 * slots reused once released, while a slow receiver with a queue of two holds the sender back; or copied out where
 * the graph keeps messages) and arrive byte for byte, in order, with exact counts, kept messages unchanged, also
 * when every other message is small and goes over UDP on the same link; with the
 * same-host path switched off the same traffic goes over UDP. Each process removes its private folder (and the
 * slots in it) on exit ({@link Jvm#await}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SharedMemoryLinkTest {
    @ParameterizedTest
    @CsvSource({"true, 40, 1048589, false, 6", "true, 6, 20971520, false, 6", "false, 12, 1048589, false, 6",
            "true, 40, 1048589, true, 6", "true, 40, 1048589, false, 3"})
    void largeMessagesArriveByteForByte(boolean shared, int n, long bytes, boolean alternate, int slots)
            throws Exception {
        int port = Jvm.freePort();
        List<String> jvm = List.of("-Xmx512m", "-Djkompute.net.sharedMemory=" + shared,
                "-Djkompute.net.sharedSlots=" + slots);
        try (Jvm rx = Jvm.start("rx", jvm, RunGraph.class.getName(), TwoProcessPingTest.RX,
                "--param", "rx/signal/port=" + port, "--param", "rx/count/count=" + n,
                "--param", "rx/signal/capacity=2",
                "--param", "rx/seq/codelet_params={receiver: signal, pattern: true, delay_ms: 2, keep: "
                        + (slots < 6 ? 3 : 0) + "}");
             Jvm tx = Jvm.start("tx", jvm, RunGraph.class.getName(), TwoProcessPingTest.TX,
                     "--param", "tx/signal/port=" + port, "--param", "tx/count/count=" + n,
                     "--param", "tx/seq/codelet_params={transmitter: signal, bytes: " + bytes + ", pattern: true, "
                             + "alternate: " + alternate + "}")) {
            assertEquals(0, tx.await(200), tx.output());
            assertEquals(0, rx.await(200), rx.output());
            assertEquals(List.of("SEQ last=" + n + " count=" + n), rx.lines("SEQ"), rx.output());
            assertEquals(slots < 6 ? List.of("KEPT 3 unchanged") : List.of(), rx.lines("KEPT"), rx.output());
            String txLink = tx.lines("LINK").getFirst();
            String rxLink = rx.lines("LINK").getFirst();
            assertTrue(txLink.contains(n + " sent, " + n + " delivered, 0 dropped"), txLink);
            assertTrue(rxLink.contains(n + " sent, " + n + " delivered, 0 dropped"), rxLink);
            if (shared) {
                // with alternate sizes, the small half goes over UDP: one sequence across both paths
                int big = alternate ? n / 2 : n;
                // the receiving graph holds at most 3 messages (a queue of 2 and the one in its tick): with the 6
                // default slots every message is decoded in place. With 3 slots and a graph that also keeps its last
                // 3 messages, a message that comes while 2 slots are held is copied out and its slot released at
                // once, so the sender never stalls; what the graph keeps stays unchanged (KEPT)
                assertTrue(txLink.contains("[" + big + " through shared memory]"), txLink);
                assertTrue(rxLink.contains("[" + big + " through shared memory" + (slots == 6 ? "]" : ", ")), rxLink);
                if (slots < 6) {
                    assertTrue(rxLink.matches(".*, [1-9][0-9]* of them copied out\\].*"), rxLink);
                }
            } else {
                assertFalse(txLink.contains("shared memory"), txLink);
                assertFalse(rxLink.contains("shared memory"), rxLink);
            }
        }
    }
}

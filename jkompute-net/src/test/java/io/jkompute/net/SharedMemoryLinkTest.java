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
 * Two JVMs on one host: large messages go through the transmitter's shared slots (three, reused while a slow
 * receiver with a queue of two holds the sender back) and arrive byte for byte, in order, with exact counts, also
 * when every other message is small and goes over UDP on the same link; with the
 * same-host path switched off the same traffic goes over UDP. Each process removes its private folder (and the
 * slots in it) on exit ({@link Jvm#await}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SharedMemoryLinkTest {
    @ParameterizedTest
    @CsvSource({"true, 40, 1048589, false", "true, 6, 20971520, false", "false, 12, 1048589, false",
            "true, 40, 1048589, true"})
    void largeMessagesArriveByteForByte(boolean shared, int n, long bytes, boolean alternate) throws Exception {
        int port = Jvm.freePort();
        List<String> jvm = List.of("-Xmx512m", "-Djkompute.net.sharedMemory=" + shared);
        try (Jvm rx = Jvm.start("rx", jvm, RunGraph.class.getName(), TwoProcessPingTest.RX,
                "--param", "rx/signal/port=" + port, "--param", "rx/count/count=" + n,
                "--param", "rx/signal/capacity=2",
                "--param", "rx/seq/codelet_params={receiver: signal, pattern: true, delay_ms: 2}");
             Jvm tx = Jvm.start("tx", jvm, RunGraph.class.getName(), TwoProcessPingTest.TX,
                     "--param", "tx/signal/port=" + port, "--param", "tx/count/count=" + n,
                     "--param", "tx/seq/codelet_params={transmitter: signal, bytes: " + bytes + ", pattern: true, "
                             + "alternate: " + alternate + "}")) {
            assertEquals(0, tx.await(200), tx.output());
            assertEquals(0, rx.await(200), rx.output());
            assertEquals(List.of("SEQ last=" + n + " count=" + n), rx.lines("SEQ"), rx.output());
            String txLink = tx.lines("LINK").getFirst();
            String rxLink = rx.lines("LINK").getFirst();
            assertTrue(txLink.contains(n + " sent, " + n + " delivered, 0 dropped"), txLink);
            assertTrue(rxLink.contains(n + " sent, " + n + " delivered, 0 dropped"), rxLink);
            if (shared) {
                // with alternate sizes, the small half goes over UDP: one sequence across both paths
                int big = alternate ? n / 2 : n;
                assertTrue(txLink.contains("[" + big + " through shared memory]"), txLink);
                assertTrue(rxLink.contains("[" + big + " through shared memory]"), rxLink);
            } else {
                assertFalse(txLink.contains("shared memory"), txLink);
                assertFalse(rxLink.contains("shared memory"), rxLink);
            }
        }
    }
}

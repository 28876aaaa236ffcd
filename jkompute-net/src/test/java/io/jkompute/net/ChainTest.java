package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Three JVMs, tx → relay → rx: order and counts kept over two hops, for small and 64 MiB messages. */
class ChainTest {
    static final String RELAY = Jvm.file("src/test/resources/net/seq-relay.yaml");

    @ParameterizedTest
    @CsvSource({"300, 0", "20, 1048576", "4, 67108864"})
    void threeProcessesInAChain(int n, long bytes) throws Exception {
        int p1 = Jvm.freePort();
        int p2 = Jvm.freePort();
        List<String> big = List.of("-Xmx256m");
        // the receiving end first, the sender last: each waits for the next anyway, the order only saves retries
        try (Jvm rx = Jvm.start("rx", big, RunGraph.class.getName(), TwoProcessPingTest.RX,
                "--param", "rx/signal/port=" + p2, "--param", "rx/count/count=" + n);
             Jvm relay = Jvm.start("relay", big, RunGraph.class.getName(), RELAY,
                     "--param", "relay/in/port=" + p1, "--param", "relay/out/port=" + p2,
                     "--param", "relay/count/count=" + n);
             Jvm tx = Jvm.start("tx", big, RunGraph.class.getName(), TwoProcessPingTest.TX,
                     "--param", "tx/signal/port=" + p1, "--param", "tx/count/count=" + n,
                     "--param", "tx/seq/codelet_params={transmitter: signal, bytes: " + bytes + "}")) {
            assertEquals(0, tx.await(300), tx.output());
            assertEquals(0, relay.await(300), relay.output());
            assertEquals(0, rx.await(300), rx.output());
            assertEquals(List.of("SEQ last=" + n + " count=" + n), relay.lines("SEQ"), relay.output());
            assertEquals(List.of("SEQ last=" + n + " count=" + n), rx.lines("SEQ"), rx.output());
            String link = rx.lines("LINK").getFirst();
            assertTrue(link.contains(n + " sent, " + n + " delivered, 0 dropped"), link);
        }
    }
}

package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jkompute.cuda.Cuda;
import io.jkompute.graph.Component;
import io.jkompute.graph.Entity;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphExecutionException;
import io.jkompute.graph.IpcImports;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import io.jkompute.net.bench.DeviceIpc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * CUDA device tensors between two processes on one GPU through a link: the sender's tensors are blocks of a CUDA
 * pool, this JVM's receiver copies them by reference (CUDA IPC) into blocks of its own CUDA pool. Contents are
 * checked element by element against what the sender wrote, the other process's buffers are opened once each and
 * closed with the link, device memory stays flat over 2,000 messages, and a forged or out-of-range handle from the
 * authenticated sender ends the link with a protocol violation instead of a crash.
 */
@Tag("gpu")
class CudaIpcLinkGpuTest {
    private static final long MIB = 1L << 20;

    @BeforeEach
    void requireCuda() {
        String why;
        try {
            why = Cuda.unavailableReason();
        } catch (LinkageError e) {
            why = e.toString();
        }
        String reason = why;
        assumeTrue(why == null, () -> "needs a CUDA driver and device (run on the GPU host): " + reason);
        assumeTrue(DeviceIpc.unavailable() == null, () -> DeviceIpc.unavailable()
                + " (the GPU host's one-JVM suite, scripts/gpu-host/run.sh suite, has it)");
    }

    private static Path yaml(String text) {
        try {
            Path f = Files.createTempFile("jkompute-cudaipc", ".yaml");
            Files.writeString(f, text);
            f.toFile().deleteOnExit();
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static UcxReceiver receiverOf(Graph g) {
        for (Entity e : g.entities()) {
            for (Component c : e.components()) {
                if (c instanceof UcxReceiver r) {
                    return r;
                }
            }
        }
        throw new AssertionError("no UcxReceiver");
    }

    /** The receiving graph's figures and what it saw of the link. */
    record Received(RunResult result, String link, int openDuringRun, IpcImports imports, long[] sink) {
    }

    /** Runs the receiving app here while {@code sender} (a child JVM) sends; returns after both ended. */
    private static Received receive(String app, Jvm sender) throws Exception {
        try (Graph g = Graph.loader().file(yaml(app)).load()) {
            RunResult r = g.run();
            UcxReceiver rx = receiverOf(g);
            IpcImports imports = rx.imports();
            int open = imports == null ? 0 : imports.openCount();
            String link = rx.linkStatistics().toString();
            g.close();
            return new Received(r, link, open, imports, DeviceIpc.Sink.figures());
        } finally {
            assertEquals(0, sender.await(300), sender.output());
        }
    }

    @Test
    void sixtyFourMiBDeviceTensorsArriveByReferenceExactlyAndTheHandlesCloseAtTheEnd() throws Exception {
        int n = 24;
        long bytes = 64 * MIB;
        int port = Jvm.freePort();
        // two blocks on the sending side for a queue of 2: each block is written again for the next message as soon
        // as it is back, so a block handed back before the receiver's copy would show as a wrong message
        try (Jvm sender = Jvm.graph("sender", yaml(DeviceIpc.senderApp(port, bytes, n, 2, 2, true)).toString())) {
            Received got = receive(DeviceIpc.receiverApp(port, bytes, n, 2, 1), sender);
            assertEquals(StopReason.COMPLETED, got.result().reason(), got.result().detail());
            assertEquals(n, got.sink()[0]);
            assertEquals(n, got.sink()[2], "every message checked in full");
            assertTrue(got.link().contains(n + " sent, " + n + " delivered, 0 dropped"), got.link());
            assertTrue(got.link().contains("[" + n + " device tensors by reference]"), got.link());
            assertTrue(got.openDuringRun() >= 1 && got.openDuringRun() <= 2,
                    "each of the sender's 2 blocks opened once: " + got.openDuringRun());
            assertEquals(0, got.imports().openCount(), "the other process's buffers are unmapped with the link");
            List<String> links = sender.lines("LINK");
            assertEquals(1, links.size(), sender.output());
            assertTrue(links.get(0).contains("[" + n + " device tensors by reference]"), links.get(0));
            assertEquals(List.of("RESULT COMPLETED"), sender.lines("RESULT"), sender.output());
        }
    }

    @Test
    void twoThousandMessagesKeepDeviceMemoryFlat() throws Exception {
        int n = 2000;
        long bytes = 4 * MIB;
        int port = Jvm.freePort();
        try (Jvm sender = Jvm.graph("sender", yaml(DeviceIpc.senderApp(port, bytes, n, 4, 8, false)).toString())) {
            Received got = receive(DeviceIpc.receiverApp(port, bytes, n, 4, 100), sender);
            assertEquals(StopReason.COMPLETED, got.result().reason(), got.result().detail());
            assertEquals(n, got.sink()[0]);
            assertEquals(n / 100 + 1, got.sink()[2], "message 1 and every 100th checked in full");
            assertTrue(got.link().contains("[" + n + " device tensors by reference]"), got.link());
            assertTrue(got.openDuringRun() >= 1 && got.openDuringRun() <= 8,
                    "at most the sender's 8 blocks opened, once each: " + got.openDuringRun());
            assertEquals(0, got.imports().openCount());
            long drift = got.sink()[3] - got.sink()[4];
            System.out.printf("soak: %d messages of 4 MiB by reference, free device memory %d MiB after 200, %d MiB "
                    + "at the end (drift %d bytes)%n", n, got.sink()[3] >> 20, got.sink()[4] >> 20, drift);
            assertTrue(Math.abs(drift) < 8 * MIB, "free device memory moved by " + drift + " bytes over "
                    + (n - n / 10) + " messages");
        }
    }

    @Test
    void switchedOffDeviceTensorsGoByTheirBytes() throws Exception {
        int n = 6;
        long bytes = 8 * MIB;
        int port = Jvm.freePort();
        try (Jvm sender = Jvm.start("sender", List.of("-Djkompute.net.cudaIpc=false"), RunGraph.class.getName(),
                yaml(DeviceIpc.senderApp(port, bytes, n, 2, 4, true)).toString())) {
            Received got = receive(DeviceIpc.receiverApp(port, bytes, n, 2, 1), sender);
            assertEquals(StopReason.COMPLETED, got.result().reason(), got.result().detail());
            assertEquals(n, got.sink()[2], "every message checked in full");
            assertTrue(!got.link().contains("by reference"), got.link());
            assertNull(got.imports(), "nothing opened");
        }
    }

    private static String forgingApp(int port, String mode) {
        return DeviceIpc.senderApp(port, MIB, 1000, 2, 2, ForgedReferenceSource.class.getName(), "mode: " + mode);
    }

    @Test
    void aForgedHandleOrARangeOutsideTheBufferEndsTheLinkWithAProtocolViolation() throws Exception {
        for (String mode : List.of("handle", "offset")) {
            int port = Jvm.freePort();
            try (Jvm sender = Jvm.graph("forger", yaml(forgingApp(port, mode)).toString());
                 Graph g = Graph.loader().file(yaml(DeviceIpc.receiverApp(port, MIB, 1, 2, 1))).load()) {
                var failure = assertThrows(GraphExecutionException.class, g::run, mode);
                String expected = mode.equals("handle") ? "cannot be opened" : "outside the other process";
                assertTrue(failure.getMessage().contains("protocol violation")
                        && failure.getMessage().contains(expected), mode + ": " + failure.getMessage());
                assertEquals(0, receiverOf(g).linkStatistics().delivered(), "nothing delivered");
                g.close();
                // the sender (its blocks held for the receiver, which never released them) learns of it from the
                // receiver's failed goodbye, and fails too
                assertEquals(1, sender.await(120), sender.output());
                String failed = sender.lines("FAILED").getFirst();
                assertTrue(failed.contains("the receiving side failed") && failed.contains("protocol violation"),
                        failed);
            }
        }
    }
}

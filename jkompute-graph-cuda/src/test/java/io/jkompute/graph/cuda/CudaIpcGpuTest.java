package io.jkompute.graph.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jkompute.DataType;
import io.jkompute.cuda.Cuda;
import io.jkompute.graph.DeviceBuffer;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.IpcImports;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * CUDA pool memory of one process copied by another on the same GPU through CUDA IPC: a second JVM
 * ({@link IpcExporter}) allocates and fills buffers, this one opens their handles and checks every byte.
 */
@Tag("gpu")
class CudaIpcGpuTest {
    private static final long MIB = 1L << 20;

    private final CudaMemory cuda = new CudaMemory();
    private Process child;
    private PrintWriter toChild;
    private BufferedReader fromChild;

    @BeforeEach
    void requireCuda() {
        String why = Cuda.unavailableReason();
        assumeTrue(why == null, () -> "needs a CUDA driver and device (run on the GPU host): " + why);
    }

    @AfterEach
    void endChild() throws Exception {
        if (child == null) return;
        if (child.isAlive()) {
            toChild.println("EXIT");
            toChild.flush();
            if (!child.waitFor(20, TimeUnit.SECONDS)) child.destroyForcibly();
        }
    }

    private void startExporter() throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("jkompute."))
                .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(IpcExporter.class.getName());
        child = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        toChild = new PrintWriter(child.getOutputStream(), true);
        fromChild = new BufferedReader(new InputStreamReader(child.getInputStream()));
    }

    /** Sends one command; returns the lines before its OK. */
    private List<String> ask(String command) throws IOException {
        toChild.println(command);
        List<String> lines = new ArrayList<>();
        for (String l; (l = fromChild.readLine()) != null; ) {
            if (l.equals("OK")) return lines;
            lines.add(l);
        }
        throw new IOException("the exporting process ended (exit " + waitExit() + ") while answering " + command);
    }

    private int waitExit() {
        try {
            return child.waitFor(10, TimeUnit.SECONDS) ? child.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private List<byte[]> alloc(int count, long bytes) throws IOException {
        List<byte[]> handles = new ArrayList<>();
        for (String l : ask("ALLOC " + count + " " + bytes)) {
            handles.add(HexFormat.of().parseHex(l.split(" ")[2]));
        }
        assertEquals(count, handles.size());
        return handles;
    }

    /** Every int of {@code buffer} is the exporter's pattern for {@code seed}. */
    private static void assertContent(DeviceBuffer buffer, long bytes, long seed, String what) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(buffer.byteSize(), 4);
            ((CudaMemory.Buffer) buffer).block().get(host);
            int n = (int) (bytes / 4);
            for (int i = 0; i < n; i++) {
                int got = host.getAtIndex(ValueLayout.JAVA_INT, i);
                if (got != IpcExporter.pattern(seed, i)) {
                    throw new AssertionError(what + ": int " + i + " is " + got + ", expected " + IpcExporter.pattern(seed, i));
                }
            }
        }
    }

    @Test
    void sixtyFourMiBBuffersOfAnotherProcessArriveExactlyAndHandlesCloseAtTheEnd() throws Exception {
        startExporter();
        long bytes = 64 * MIB;
        List<byte[]> handles = alloc(3, bytes);
        try (Graph g = Graph.create(); IpcImports imports = cuda.openIpcImports(g);
                DeviceBuffer mine = cuda.allocate(g, bytes)) {
            for (int round = 0; round < 3; round++) {
                for (int b = 0; b < handles.size(); b++) {
                    long seed = round * 10L + b;
                    ask("FILL " + b + " " + seed);
                    imports.copy(handles.get(b), 0, bytes, mine);
                    assertContent(mine, bytes, seed, "round " + round + " buffer " + b);
                }
            }
            assertEquals(3, imports.openCount(), "each exported buffer opened once, then reused");
            // a range inside the buffer: its bytes land at the target's start
            ask("FILL 1 77");
            imports.copy(handles.get(1), 4 * MIB, MIB, mine);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment host = arena.allocate(MIB, 4);
                ((CudaMemory.Buffer) mine).block().view(io.jkompute.cuda.DType.UINT8, MIB).get(host);
                for (int i = 0; i < MIB / 4; i++) {
                    assertEquals(IpcExporter.pattern(77, (int) (MIB + i)), host.getAtIndex(ValueLayout.JAVA_INT, i), "int " + i);
                }
            }
            imports.close();
            assertEquals(0, imports.openCount(), "closing unmaps every opened buffer");
        }
        ask("EXIT");
        assertEquals(0, waitExit(), "the exporter frees its buffers and ends cleanly after the importer unmapped them");
    }

    @Test
    void aQueuedCopyIsReadThroughItsTensorsStreamAndDoneOnceItRan() throws Exception {
        startExporter();
        long bytes = 64 * MIB;
        List<byte[]> handles = alloc(2, bytes);
        try (Graph g = Graph.create(); IpcImports imports = cuda.openIpcImports(g);
                DeviceBuffer a = cuda.allocate(g, bytes); DeviceBuffer b = cuda.allocate(g, bytes)) {
            for (int round = 0; round < 6; round++) {
                long seedA = 100 + round, seedB = 200 + round;
                ask("FILL 0 " + seedA);
                ask("FILL 1 " + seedB);
                IpcImports.Pending pa = imports.copyQueued(handles.get(0), 0, bytes, a);
                IpcImports.Pending pb = imports.copyQueued(handles.get(1), 0, bytes, b);
                // read at once, before either copy is waited for: the tensor's stream orders the read after the copy
                GraphTensor t = a.tensor(DataType.INT32, new long[] {bytes / 4}, () -> { });
                assertNotNull(((CudaDeviceTensor) t).stream(), "a tensor over a block being copied into carries the copy's stream");
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment host = t.toHost(arena);
                    for (int i = 0; i < bytes / 4; i++) {
                        if (host.getAtIndex(ValueLayout.JAVA_INT, i) != IpcExporter.pattern(seedA, i)) {
                            throw new AssertionError("round " + round + ": int " + i + " of the tensor is "
                                    + host.getAtIndex(ValueLayout.JAVA_INT, i) + ", expected " + IpcExporter.pattern(seedA, i));
                        }
                    }
                }
                assertTrue(pa.done(), "the copy a read waited for is done");
                pb.close();
                assertTrue(pb.done(), "a closed copy is done");
                pb.close(); // again: nothing
                assertContent(b, bytes, seedB, "round " + round + " buffer b");
                pa.close();
            }
            assertEquals(2, imports.openCount());
        }
        ask("EXIT");
        assertEquals(0, waitExit(), "the exporter frees its buffers and ends cleanly after the importer unmapped them");
    }

    @Test
    void forgedForeignAndOutOfRangeHandlesAreRefusedWithoutCopying() throws Exception {
        startExporter();
        List<byte[]> handles = alloc(2, MIB);
        try (Graph g = Graph.create(); IpcImports imports = cuda.openIpcImports(g); DeviceBuffer mine = cuda.allocate(g, MIB);
                DeviceBuffer small = cuda.allocate(g, 4096)) {
            byte[] good = handles.get(0);
            CudaIpcHandle h = CudaIpcHandle.decode(good);

            byte[] forged = h.handle().clone();
            for (int i = 0; i < forged.length; i++) forged[i] ^= (byte) 0x5a;
            var e = assertThrows(IllegalArgumentException.class,
                    () -> imports.copy(new CudaIpcHandle(h.device(), forged, MIB).encode(), 0, MIB, mine));
            assertTrue(e.getMessage().contains("cannot be opened"), e.getMessage());

            var other = assertThrows(IllegalArgumentException.class,
                    () -> imports.copy(new CudaIpcHandle(new UUID(1, 2), h.handle(), MIB).encode(), 0, MIB, mine));
            assertTrue(other.getMessage().contains("is on GPU"), other.getMessage());

            assertThrows(IllegalArgumentException.class, () -> imports.copy(good, MIB - 4, 8, mine), "past the end");
            assertThrows(IllegalArgumentException.class, () -> imports.copy(good, -4, 8, mine), "negative offset");
            assertThrows(IllegalArgumentException.class, () -> imports.copy(good, 0, 0, mine), "empty");
            assertThrows(IllegalArgumentException.class, () -> imports.copy(good, 0, MIB, small), "larger than the target");
            assertEquals(0, imports.openCount(), "nothing was opened by a refused copy");

            // this process's own buffer: CUDA does not open a handle in the process that exported it
            byte[] own = mine.ipcHandle().orElseThrow();
            assertThrows(IllegalArgumentException.class, () -> imports.copy(own, 0, 4096, small));

            // not checked here: a handle of memory its owner has freed. On an H200 with driver 580.159.04,
            // cuIpcOpenMemHandle opened one without an error, so the owner keeping its buffer until the importer's
            // copy has finished is what guarantees the bytes, not a check at open.

            // and the link still works for the genuine buffer
            ask("FILL 0 5");
            imports.copy(good, 0, MIB, mine);
            assertContent(mine, MIB, 5, "after refused handles");
            assertEquals(1, imports.openCount());
        }
    }

    @Test
    void soakOfTwoThousandMessagesKeepsFreeDeviceMemoryFlat() throws Exception {
        startExporter();
        long bytes = MIB;
        int blocks = 4, messages = 2_000;
        List<byte[]> handles = alloc(blocks, bytes);
        try (Graph g = Graph.create(); IpcImports imports = cuda.openIpcImports(g); DeviceBuffer mine = cuda.allocate(g, bytes)) {
            long freeAfterWarmUp = 0;
            for (int m = 0; m < messages; m++) {
                int b = m % blocks;
                ask("FILL " + b + " " + m);
                imports.copy(handles.get(b), 0, bytes, mine);
                assertContent(mine, bytes, m, "message " + m);
                if (m == 100) freeAfterWarmUp = Cuda.memoryInfo().free();
            }
            assertEquals(blocks, imports.openCount(), "one mapping per exported block, whatever the message count");
            long freeAtEnd = Cuda.memoryInfo().free();
            assertEquals(freeAfterWarmUp, freeAtEnd, "free device memory after message 100 and after " + messages);
        }
    }
}

package io.jkompute.graph.cuda;

import io.jkompute.cuda.GpuArray;
import io.jkompute.graph.DeviceBuffer;
import io.jkompute.graph.Graph;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The exporting process of {@link CudaIpcGpuTest}: CUDA pool memory of its own, driven line by line on stdin
 * ({@code ALLOC count bytes}, {@code FILL index seed}, {@code EXIT}), each answered with one line
 * on stdout ({@code HANDLE index hex}..., {@code OK}).
 */
public final class IpcExporter {
    private IpcExporter() {}

    /** The int at {@code index} of a buffer filled with {@code seed}: different per position and per fill. */
    static int pattern(long seed, int index) {
        return (int) (seed * 0x9E3779B1L) + index * 7 + 1;
    }

    static MemorySegment fill(Arena arena, long bytes, long seed) {
        MemorySegment host = arena.allocate(bytes, 4);
        int n = (int) (bytes / 4);
        for (int i = 0; i < n; i++) host.setAtIndex(ValueLayout.JAVA_INT, i, pattern(seed, i));
        return host;
    }

    public static void main(String[] args) throws Exception {
        CudaMemory cuda = new CudaMemory();
        List<DeviceBuffer> buffers = new ArrayList<>();
        var in = new BufferedReader(new InputStreamReader(System.in));
        try (Graph graph = Graph.create(); Arena arena = Arena.ofConfined()) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] w = line.trim().split(" ");
                switch (w[0]) {
                    case "ALLOC" -> {
                        int count = Integer.parseInt(w[1]);
                        long bytes = Long.parseLong(w[2]);
                        for (int i = 0; i < count; i++) {
                            DeviceBuffer b = cuda.allocate(graph, bytes);
                            buffers.add(b);
                            System.out.println("HANDLE " + (buffers.size() - 1) + " "
                                    + HexFormat.of().formatHex(b.ipcHandle().orElseThrow()));
                        }
                    }
                    case "FILL" -> {
                        var b = (CudaMemory.Buffer) buffers.get(Integer.parseInt(w[1]));
                        GpuArray block = b.block();
                        try (Arena once = Arena.ofConfined()) {
                            block.set(fill(once, b.byteSize(), Long.parseLong(w[2])));
                        }
                        // announced only once written: a copy from pageable memory returns before its DMA lands,
                        // and the reading process is not ordered after this one's default stream
                        io.jkompute.cuda.Stream.defaultStream().synchronize();
                    }
                    case "EXIT" -> {
                        System.out.println("OK");
                        System.out.flush();
                        for (DeviceBuffer b : buffers) b.close();
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown command " + line);
                }
                System.out.println("OK");
                System.out.flush();
            }
        }
    }
}

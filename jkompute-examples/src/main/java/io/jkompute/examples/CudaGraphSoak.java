package io.jkompute.examples;

import io.jkompute.DataType;
import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.MemoryInfo;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.StorageType;
import io.jkompute.graph.cuda.CudaDeviceTensor;
import io.jkompute.graph.cuda.CudaStreamId;
import io.jkompute.graph.cuda.CudaStreamPool;
import io.jkompute.graph.std.BlockMemoryPool;
import io.jkompute.graph.std.UnboundedAllocator;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads and closes a GXF-style CUDA app many times in one JVM: each cycle makes a CudaStreamPool and a CUDA
 * BlockMemoryPool (GPUDevice resource), takes every stream up to max_size and gives them back, writes and reads back
 * pool tensors and unbounded device allocations on those streams, and closes the graph. What a service that loads an
 * app per job does. Prints every 1000 cycles heap used after GC, resident memory (VmRSS) and free device memory
 * ({@code cuMemGetInfo}); exits 1 on the first wrong value, and when free device memory at the end is more than
 * 64 MiB below the first report's.
 *
 * <pre>java -cp ... io.jkompute.examples.CudaGraphSoak [cycles=20000]</pre>
 */
public final class CudaGraphSoak {
    private CudaGraphSoak() {}

    private static final String APP = """
            name: g
            components:
            - name: streams
              type: nvidia::gxf::CudaStreamPool
              parameters: { stream_flags: 1, stream_priority: 0, reserved_size: 2, max_size: 8 }
            - name: pool
              type: nvidia::gxf::BlockMemoryPool
              parameters: { storage_type: 1, block_size: 65536, num_blocks: 4 }
            - name: unbounded
              type: nvidia::gxf::UnboundedAllocator
            ---
            name: scheduler
            components:
            - { name: clock, type: nvidia::gxf::ManualClock }
            - { type: nvidia::gxf::GreedyScheduler, parameters: { clock: clock } }
            ---
            name: GPU_0
            components:
            - { name: GPU_0, type: nvidia::gxf::GPUDevice, parameters: { dev_id: 0 } }
            """;

    /** Runs the soak: {@code [cycles=20000]}; exits 1 on the first wrong value or when device memory leaks. */
    public static void main(String[] args) throws IOException {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        String why = Cuda.unavailableReason();
        if (why != null) {
            System.err.println("CudaGraphSoak needs CUDA: " + why);
            System.exit(2);
        }
        Path app = Files.createTempFile("cuda-soak", ".yaml");
        Files.writeString(app, APP);
        long firstFree = -1;
        int i = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(16384L * Float.BYTES, 8);
            for (i = 0; i <= cycles; i++) {
                if (i > 0) {
                    cycle(app, i, in);
                }
                if (i % 1000 == 0 || i == cycles) {
                    long free = report(i);
                    if (firstFree < 0) {
                        firstFree = free;
                    }
                }
            }
            MemoryInfo m = Cuda.memoryInfo();
            long drift = firstFree - m.free();
            System.out.printf("done: %d cycles, free device memory %+d MiB since the start%n", cycles, -drift >> 20);
            if (drift > 64L << 20) {
                System.out.println("FAIL: device memory leaks");
                System.exit(1);
            }
        } catch (RuntimeException | AssertionError e) {
            System.out.println("FAIL at cycle " + i + ": " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        } finally {
            Files.deleteIfExists(app);
        }
    }

    private static void cycle(Path app, int cycle, MemorySegment in) {
        try (Graph g = Graph.loader().file(app).load(); Arena arena = Arena.ofConfined()) {
            CudaStreamPool streams = g.component("g/streams", CudaStreamPool.class);
            BlockMemoryPool pool = g.component("g/pool", BlockMemoryPool.class);
            UnboundedAllocator unbounded = g.component("g/unbounded", UnboundedAllocator.class);
            List<CudaStreamId> ids = new ArrayList<>();
            for (int s = 0; s < 8; s++) {
                ids.add(streams.allocateStream());
            }
            int n = 16384;
            for (int k = 0; k < n; k++) {
                in.setAtIndex(ValueLayout.JAVA_FLOAT, k, cycle + k);
            }
            for (int t = 0; t < 4; t++) {
                try (CudaDeviceTensor a = CudaDeviceTensor.allocate(pool, DataType.FLOAT32, n);
                        GraphTensor b = GraphTensor.allocate(unbounded, StorageType.DEVICE, DataType.FLOAT32, n)) {
                    a.copyFromHost(in);
                    CudaDeviceTensor cb = CudaDeviceTensor.of(b);
                    cb.array().copyFrom(a.array());
                    cb.setStream(ids.get(t).stream());
                    MemorySegment back = cb.toHost(arena);
                    if (back.mismatch(in) >= 0) {
                        throw new AssertionError("cycle " + cycle + ": device copy differs at byte " + back.mismatch(in));
                    }
                }
            }
            for (CudaStreamId id : ids) {
                streams.releaseStream(id);
            }
            if (pool.freeBlocks() != 4) {
                throw new AssertionError("cycle " + cycle + ": pool blocks not returned");
            }
        }
    }

    private static long report(int cycle) {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        long heap = rt.totalMemory() - rt.freeMemory();
        String rss = "?";
        try {
            rss = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS"))
                    .findFirst().map(l -> l.replaceAll("\\s+", " ")).orElse("?");
        } catch (IOException ignored) {
            // not Linux: no resident size
        }
        MemoryInfo m = Cuda.memoryInfo();
        System.out.printf("cycle %6d  heap %6.1f MiB  %s  device free %d MiB%n", cycle, heap / 1048576.0, rss,
                m.free() >> 20);
        return m.free();
    }
}

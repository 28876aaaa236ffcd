package io.jkompute.bench.cuda;

import io.jkompute.cuda.Cuda;
import io.jkompute.graph.Graph;
import io.jkompute.graph.RunResult;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Soak of Python codelets on CUDA tensors: {@code apps/python/cuda/SoakCodelets.py}, a CuPy producer and a checking
 * consumer over a CUDA pool, run in rounds until the total number of ticks (default 1,000,000 per codelet) is reached.
 * After each round: Java heap after a GC, resident memory ({@code /proc/self/statm}) and free device memory
 * ({@code cuMemGetInfo}). Exits 1 when any of them grew from the second round to the last by more than its limit
 * (heap 32 MiB, resident 128 MiB, device 64 MiB), or when a frame was wrong.
 * Run from the repository root: {@code java -cp ... io.jkompute.bench.cuda.PythonCudaSoak [ticks] [rounds]}.
 */
public final class PythonCudaSoak {
    private PythonCudaSoak() {
    }

    public static void main(String[] args) throws IOException {
        long ticks = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        String why = Cuda.unavailableReason();
        if (why != null) {
            System.out.println("SKIP PythonCudaSoak: CUDA is not usable here: " + why);
            return;
        }
        Path codelets = Path.of("apps/python/cuda/SoakCodelets.py").toAbsolutePath();
        if (!Files.isRegularFile(codelets)) {
            System.out.println("FAIL PythonCudaSoak: run it from the repository root (" + codelets + " not found)");
            System.exit(1);
        }
        long perRound = ticks / rounds;
        Path app = Files.createTempFile("python-cuda-soak", ".yaml");
        Files.writeString(app, yaml(codelets, perRound));
        long[][] samples = new long[rounds][];
        long t0 = System.nanoTime();
        for (int r = 0; r < rounds; r++) {
            try (Graph g = Graph.load(app)) {
                RunResult result = g.run();
                long rx = g.entity("rx").tickCount();
                if (rx != perRound) {
                    System.out.println("FAIL PythonCudaSoak: round " + r + ": rx ticked " + rx + " of " + perRound
                            + " (" + result + ")");
                    System.exit(1);
                }
            }
            System.gc();
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            long rss = Long.parseLong(Files.readString(Path.of("/proc/self/statm")).split(" ")[1]) * 4096;
            long free = Cuda.memoryInfo().free();
            samples[r] = new long[] {heap, rss, free};
            System.out.printf("round %2d: %,d ticks each codelet, %.1f s total, heap %,d B, resident %,d B, device free "
                    + "%,d B%n", r + 1, (r + 1) * perRound, (System.nanoTime() - t0) / 1e9, heap, rss, free);
        }
        Files.deleteIfExists(app);
        int first = Math.min(1, rounds - 1);
        long heapGrowth = samples[rounds - 1][0] - samples[first][0];
        long rssGrowth = samples[rounds - 1][1] - samples[first][1];
        long deviceLoss = samples[first][2] - samples[rounds - 1][2];
        boolean ok = heapGrowth < 32L << 20 && rssGrowth < 128L << 20 && deviceLoss < 64L << 20;
        System.out.printf("%s PythonCudaSoak: %,d ticks per codelet; from round %d to %d: heap %+,d B, resident %+,d B, "
                + "device free %+,d B%n", ok ? "PASS" : "FAIL", perRound * rounds, first + 1, rounds, heapGrowth,
                rssGrowth, -deviceLoss);
        System.exit(ok ? 0 : 1);
    }

    private static String yaml(Path codelets, long ticks) {
        return """
                name: pools
                components:
                - name: device
                  type: nvidia::gxf::BlockMemoryPool
                  parameters: { storage_type: 1, block_size: 4096, num_blocks: 8 }
                - name: streams
                  type: nvidia::gxf::CudaStreamPool
                  parameters: { stream_flags: 1, stream_priority: 0, reserved_size: 1, max_size: 2 }
                ---
                name: tx
                components:
                - name: out
                  type: nvidia::gxf::DoubleBufferTransmitter
                  parameters: { capacity: 4 }
                - type: nvidia::gxf::DownstreamReceptiveSchedulingTerm
                  parameters: { transmitter: out, min_size: 1 }
                - type: nvidia::gxf::CountSchedulingTerm
                  parameters: { count: %d }
                - name: py
                  type: nvidia::gxf::PyCodeletV0
                  parameters:
                    codelet_name: SoakTx
                    codelet_file: %s
                    codelet_params: { transmitter: out, allocator: pools/device, stream_pool: pools/streams }
                ---
                name: rx
                components:
                - name: in
                  type: nvidia::gxf::DoubleBufferReceiver
                  parameters: { capacity: 4 }
                - type: nvidia::gxf::MessageAvailableSchedulingTerm
                  parameters: { receiver: in, min_size: 1 }
                - name: py
                  type: nvidia::gxf::PyCodeletV0
                  parameters: { codelet_name: SoakRx, codelet_file: %s, codelet_params: { receiver: in } }
                ---
                components:
                - type: nvidia::gxf::Connection
                  parameters: { source: tx/out, target: rx/in }
                ---
                name: scheduler
                components:
                - name: clock
                  type: nvidia::gxf::RealtimeClock
                - type: nvidia::gxf::GreedyScheduler
                  parameters: { clock: clock, stop_on_deadlock: true }
                ---
                name: GPU_0
                components:
                - { name: GPU_0, type: nvidia::gxf::GPUDevice, parameters: { dev_id: 0 } }
                """.formatted(ticks, codelets, codelets);
    }
}

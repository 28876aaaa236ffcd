package io.jkompute.bench.cuda;

import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.DType;
import io.jkompute.cuda.DeviceMemory;
import io.jkompute.cuda.GpuArray;
import io.jkompute.cuda.IpcMemory;
import io.jkompute.cuda.Stream;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Device memory of another process on the same GPU, copied through CUDA IPC, against a {@code cuMemcpyDtoD} of the
 * same size inside one process, in the same run: the bound for handing a device tensor between two processes. A
 * second JVM (this class, argument {@code export}) allocates and fills the source; this one opens its handle once
 * (opening is timed too) and copies out of it into its own memory, each copy waited for, as a receiver does before
 * it lets the sender reuse the buffer. Every byte of both copies is checked.
 * <p>
 * {@code java --enable-native-access=ALL-UNNAMED -cp <jars> io.jkompute.bench.cuda.CudaIpcBench [MiB...]}
 */
public final class CudaIpcBench {
    private CudaIpcBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("export")) {
            export(Long.parseLong(args[1]));
            return;
        }
        String why = Cuda.unavailableReason();
        if (why != null) {
            System.out.println("SKIP CudaIpcBench: no CUDA here: " + why);
            return;
        }
        long[] mibs = args.length == 0 ? new long[] {1, 64} : Arrays.stream(args).mapToLong(Long::parseLong).toArray();
        System.out.println("device: " + Cuda.device().name());
        System.out.printf("%-10s %12s %12s %12s %12s %8s %12s%n", "size", "IPC ms", "IPC GB/s", "DtoD ms", "DtoD GB/s",
                "ratio", "open ms");
        for (long mib : mibs) {
            row(mib << 20);
        }
    }

    private static void row(long bytes) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("jkompute."))
                .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), CudaIpcBench.class.getName(), "export",
                Long.toString(bytes)));
        Process child = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        var in = new BufferedReader(new InputStreamReader(child.getInputStream()));
        var out = new PrintWriter(child.getOutputStream(), true);
        try {
            String line = in.readLine();
            if (line == null || !line.startsWith("HANDLE ")) throw new IllegalStateException("exporter said " + line);
            byte[] handle = HexFormat.of().parseHex(line.substring(7));
            int iters = bytes >= (16L << 20) ? 200 : 2000;
            try (DeviceMemory dst = DeviceMemory.allocate(bytes); DeviceMemory local = DeviceMemory.allocate(bytes);
                    Stream s = Stream.create(true)) {
                local.memset((byte) 7);
                long t0 = System.nanoTime();
                IpcMemory src = IpcMemory.open(handle, bytes);
                double openMs = (System.nanoTime() - t0) / 1e6;
                try (src) {
                    // the same call, stream and wait for both: only where the source lives differs
                    double ipc = timeCopies(iters, () -> {
                        dst.copyFromAsync(src.memory(), 0, 0, bytes, s);
                        s.synchronize();
                    });
                    check(dst, bytes, (byte) 0x5a);
                    double dtod = timeCopies(iters, () -> {
                        dst.copyFromAsync(local, 0, 0, bytes, s);
                        s.synchronize();
                    });
                    check(dst, bytes, (byte) 7);
                    double gbIpc = bytes / ipc / 1e6, gbLocal = bytes / dtod / 1e6;
                    System.out.printf("%-10s %12.4f %12.1f %12.4f %12.1f %8.3f %12.3f%n", (bytes >> 20) + " MiB", ipc,
                            gbIpc, dtod, gbLocal, dtod / ipc, openMs);
                }
            }
        } finally {
            out.println("EXIT");
            if (!child.waitFor(20, TimeUnit.SECONDS)) child.destroyForcibly();
        }
    }

    /** Median milliseconds of one {@code copy} after a warm-up. */
    private static double timeCopies(int iters, Runnable copy) {
        for (int i = 0; i < 10; i++) copy.run();
        double[] ms = new double[iters];
        for (int i = 0; i < iters; i++) {
            long t = System.nanoTime();
            copy.run();
            ms[i] = (System.nanoTime() - t) / 1e6;
        }
        Arrays.sort(ms);
        return ms[iters / 2];
    }

    /** Every byte of {@code m} is {@code expected}. */
    private static void check(DeviceMemory m, long bytes, byte expected) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(bytes);
            m.copyToHost(0, host);
            long at = host.asSlice(0).mismatch(arena.allocate(bytes).fill(expected));
            if (at >= 0) throw new AssertionError("byte " + at + " is " + host.get(ValueLayout.JAVA_BYTE, at) + ", expected " + expected);
        }
    }

    /** The exporting side: one filled allocation, its handle on stdout, alive until stdin says EXIT. */
    private static void export(long bytes) throws Exception {
        try (GpuArray src = GpuArray.empty(DType.UINT8, bytes)) {
            src.fill(0x5aL);
            Cuda.synchronize();
            System.out.println("HANDLE " + HexFormat.of().formatHex(IpcMemory.handleOf(src)));
            System.out.flush();
            var in = new BufferedReader(new InputStreamReader(System.in));
            for (String l; (l = in.readLine()) != null && !l.equals("EXIT"); ) {
                // waits: the importer maps this allocation until it says EXIT
            }
        }
    }
}

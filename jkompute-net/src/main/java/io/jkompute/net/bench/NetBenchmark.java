package io.jkompute.net.bench;


import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.jkompute.DataType;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.Graph;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import io.jkompute.graph.Transmitter;
import io.jkompute.net.AeronTransport;
import io.jkompute.net.internal.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramSocket;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Cross-process figures for jkompute-net against the transport underneath, in one run: a raw Aeron loop (the same
 * shared embedded driver, UDP publication/subscription, 64 KiB chunks as UcxTransmitter sends) and the same traffic
 * through jkompute graphs (UcxTransmitter → UcxReceiver), each case between this JVM and a peer JVM it starts.
 * Cases: messages per second for small (64-byte) messages, ping-pong latency per hop (round trip / 2, p50 and p99,
 * after as many round trips again to warm up),
 * and GB/s for 4 KiB, 128 KiB, 1 MiB and 64 MiB tensors. Each throughput row names the capacity of the receiving queue
 * (policy 2: the sender holds at most that many unconfirmed messages); small messages run with 4 and 256. Every message is checked on arrival, raw and jkompute alike: count,
 * sequence (1, 2, … with none missing or reordered), its number in its first and last 8 bytes, and a CRC32C of the
 * rest against the known pattern.
 *
 * <pre>
 * java … io.jkompute.net.bench.NetBenchmark [--quick] [--only CASE] [--busy-poll-us N] [--apps DIR]
 * </pre>
 * The peer runs on this host, and every subscription of both, raw and jkompute, listens on loopback only. A text table with the ratio
 * jkompute / raw ends the output; the exit status is 1 if any check failed.
 */
public final class NetBenchmark {
    /** Bytes of the small messages. */
    static final int SMALL = 64;
    static final long KIB4 = 4096;
    /** Messages per tick of the bursting small-message row. */
    static final int BURST = 8;
    static final long KIB128 = 128 * 1024;
    static final long MIB = 1 << 20;
    static final long MIB64 = 64 << 20;
    static final int STREAM = 2001;
    static final int CHUNK = 64 * 1024;

    private NetBenchmark() {
    }

    /** How many messages per case. */
    public record Counts(int small, int pings, int kib4, int mib1, int mib64, int frames) {
        /** The counts with the GPU pipeline's default: 300 frames. */
        public Counts(int small, int pings, int kib4, int mib1, int mib64) {
            this(small, pings, kib4, mib1, mib64, 300);
        }

        /** Small counts, for CI on a CPU driver. */
        public static Counts quick() {
            return new Counts(2_000, 200, 1_000, 20, 2, 300);
        }

        /** The counts of a full run. */
        public static Counts full() {
            return new Counts(50_000, 5_000, 20_000, 1_000, 20, 20_000);
        }
    }

    /** One case's raw and jkompute figures (unit: per second, GB/s or microseconds). */
    public record Row(String name, String unit, double raw, double jkompute, long checked) {
        double ratio() {
            return raw == 0 ? 0 : jkompute / raw;
        }
    }

    /** Runs the benchmark ({@code --quick} for small counts) and prints its table; {@code --peer} is the other JVM. */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--peer")) {
            System.exit(Peer.serve());
        }
        boolean quick = false;
        String only = "";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--only" -> only = i + 1 < args.length ? args[++i] : "";
                case "--busy-poll-us" -> System.setProperty(BUSY_POLL, i + 1 < args.length ? args[++i] : "0");
                case "--apps" -> System.setProperty(APPS, i + 1 < args.length ? args[++i] : "apps");
                default -> {
                    System.err.println("usage: NetBenchmark [--quick] [--only CASE-PREFIX (small, ping, 4 KiB, device, ...)]"
                            + " [--busy-poll-us N (UcxContext busy_poll_us in both graphs)]"
                            + " [--apps DIR (the repository's apps folder, for the split GPU pipeline; default apps)]");
                    System.exit(2);
                }
            }
        }
        if (Long.getLong(BUSY_POLL, 0) > 0) {
            System.out.println("graphs with UcxContext busy_poll_us: " + Long.getLong(BUSY_POLL, 0));
        }
        List<Row> rows = run(quick ? Counts.quick() : Counts.full(), System.out, only);
        System.out.print(table(rows));
        System.exit(0);
    }

    /** Runs every case; throws on a failed check. */
    public static List<Row> run(Counts n, PrintStream log) throws Exception {
        return run(n, log, "");
    }

    /** Runs the cases whose name starts with {@code only} (every case for ""). */
    public static List<Row> run(Counts n, PrintStream log, String only) throws Exception {
        List<Row> rows = new ArrayList<>();
        // the receiving queue's capacity (policy 2) bounds the messages in flight: the sender waits for a credit
        // once that many are unconfirmed. A capacity of 4 makes small messages round-trip bound (kept as a row
        // for that reason); a streaming app sizes the queue, as the other rows do, within memory (64 MiB × 4)
        if ("small 64 B, queue 4".startsWith(only)) {
            rows.add(throughput("small 64 B, queue 4", "msg/s", SMALL, 4, n.small(), log));
        }
        if ("small 64 B, queue 256".startsWith(only)) {
            rows.add(throughput("small 64 B, queue 256", "msg/s", SMALL, 256, n.small(), log));
        }
        // a codelet that publishes several messages per tick: the transmitter sends those staged together in one
        // frame (BATCH); the raw loop is as above
        if ("small 64 B, 8 per tick, queue 256".startsWith(only)) {
            rows.add(throughput("small 64 B, 8 per tick, queue 256", "msg/s", SMALL, 256, n.small() / BURST * BURST,
                    BURST, log, true));
        }
        if ("ping".startsWith(only) || only.startsWith("ping")) {
            rows.addAll(pingPong(n.pings(), log));
        }
        if ("4 KiB, queue 256".startsWith(only)) {
            rows.add(throughput("4 KiB, queue 256", "GB/s", KIB4, 256, n.kib4(), log));
        }
        // under the shared slots' 256 KiB: loopback UDP on both sides even on one host, into the receiver's pool
        if ("128 KiB, queue 64".startsWith(only)) {
            rows.add(throughput("128 KiB, queue 64", "GB/s", KIB128, 64, 8 * n.mib1(), log));
        }
        // these two over loopback UDP on both sides (jkompute's same-host path switched off), the UDP path that
        // links to other hosts take
        if ("1 MiB, queue 64".startsWith(only)) {
            rows.add(throughput("1 MiB, queue 64", "GB/s", MIB, 64, n.mib1(), log, false));
        }
        if ("64 MiB, queue 4".startsWith(only)) {
            rows.add(throughput("64 MiB, queue 4", "GB/s", MIB64, 4, n.mib64(), log, false));
        }
        // same host: raw Aeron IPC (one driver, the peer's, shared by both processes) against jkompute's shared slots
        if ("same host 1 MiB, queue 64".startsWith(only)) {
            rows.add(throughput("same host 1 MiB, queue 64", "GB/s", MIB, 64, n.mib1(), log, true));
        }
        if ("same host 64 MiB, queue 4".startsWith(only)) {
            rows.add(throughput("same host 64 MiB, queue 4", "GB/s", MIB64, 4, n.mib64() * 5, log, true));
        }
        // device tensors of 64 MiB from a CUDA pool in a peer JVM into this one's by CUDA IPC ("raw": cuMemcpyDtoD)
        if (DeviceIpc.ROW.startsWith(only)) {
            String why;
            try {
                why = DeviceIpc.unavailable();
            } catch (LinkageError e) {
                why = "jkompute-cuda is not on the class path";
            }
            if (why == null) {
                rows.add(DeviceIpc.row(Math.max(50, n.mib64() * 50), log));
            } else {
                log.println("skipped " + DeviceIpc.ROW + ": no CUDA here (" + why + ")");
            }
        }
        // the shipped GPU pipeline in one process ("raw" column) against the same pipeline split over two
        if (SPLIT.startsWith(only)) {
            Path apps = Path.of(System.getProperty(APPS, "apps"));
            if (Files.isRegularFile(apps.resolve("gpu-pipeline.yaml"))
                    && Files.isRegularFile(apps.resolve("distributed/gpu-pipeline-gpu.yaml"))) {
                rows.add(splitPipeline(apps, n.frames(), log));
            } else {
                log.println("skipped " + SPLIT + ": no apps folder at " + apps.toAbsolutePath() + " (--apps DIR)");
            }
        }
        return rows;
    }

    /** The rows as a fixed-width table. */
    public static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-22s %-7s %14s %14s %8s %10s%n", "case", "unit", "raw Aeron",
                "jkompute", "jk/raw", "checked"));
        for (Row r : rows) {
            sb.append(String.format(Locale.ROOT, "%-22s %-7s %14s %14s %8.2f %10d%n", r.name(), r.unit(),
                    fmt(r.raw()), fmt(r.jkompute()), r.ratio(), r.checked()));
        }
        return sb.toString();
    }

    private static String fmt(double v) {
        return v >= 1000 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.3f", v);
    }

    // ---- cases ---------------------------------------------------------------------------------------------

    private static Row throughput(String name, String unit, long size, int capacity, int count, PrintStream log)
            throws Exception {
        return throughput(name, unit, size, capacity, count, 1, log, true);
    }

    private static Row throughput(String name, String unit, long size, int capacity, int count, PrintStream log,
            boolean sameHost) throws Exception {
        return throughput(name, unit, size, capacity, count, 1, log, sameHost);
    }

    /**
     * @param sameHost raw: Aeron IPC through the peer's driver instead of UDP; jkompute: the same-host path
     *                 (shared slots) on, else off (everything over UDP)
     */
    private static Row throughput(String name, String unit, long size, int capacity, int count, int perTick,
            PrintStream log, boolean sameHost) throws Exception {
        double[] raw = new double[1];
        double[] jk = new double[1];
        long checked = 0;
        for (String mode : List.of("raw", "graph")) {
            int port = freePort();
            boolean ipc = sameHost && mode.equals("raw") && size >= MIB;
            try (PeerProcess p = PeerProcess.start((ipc ? "raw-ipc" : mode) + "-sink", Integer.toString(port),
                    Long.toString(size), Integer.toString(count), Integer.toString(capacity))) {
                String ready = p.awaitLine("READY", 120);
                if (ipc) {
                    rawIpcSend(ready.substring("READY ".length()), size, count);
                } else if (mode.equals("raw")) {
                    rawSend(port, size, count);
                } else {
                    String was = System.getProperty(SHARED);
                    System.setProperty(SHARED, Boolean.toString(sameHost));
                    try {
                        graphSend(port, size, count, perTick);
                    } finally {
                        if (was == null) {
                            System.clearProperty(SHARED);
                        } else {
                            System.setProperty(SHARED, was);
                        }
                    }
                }
                // generous for a loaded 2-core machine (5 MB/s), short of the test's own timeout for small counts
                String done = p.awaitLine("DONE", 120 + size * count / 5_000_000L);
                // DONE <count> <ns from the end of message 1 to the end of the last>: count − 1 messages' worth
                String[] f = done.split(" ");
                long got = Long.parseLong(f[1]);
                long ns = Long.parseLong(f[2]);
                if (got != count) {
                    throw new IllegalStateException(mode + " " + name + ": " + got + " of " + count + " arrived");
                }
                checked += got;
                double v = unit.equals("msg/s") ? (count - 1) * 1e9 / ns : (count - 1) * (double) size / ns;
                (mode.equals("raw") ? raw : jk)[0] = v;
                log.printf(Locale.ROOT, "%-8s %-22s %d messages checked, %.3f ms%n", mode, name, got, ns / 1e6);
                p.awaitExit(120);
            }
        }
        return new Row(name, unit, raw[0], jk[0], checked);
    }

    static final String SPLIT = "GPU pipeline split, frames/s (raw: one process)";
    static final String APPS = "jkompute.net.bench.apps";

    /**
     * The shipped GPU pipeline ({@code apps/gpu-pipeline.yaml}: each frame a 4 KiB host and a 4 KiB device tensor,
     * a Vulkan kernel and a CPU codelet on them, every frame compared by VerifyEqual and counted by StepCount) run in
     * this process, then split as {@code apps/distributed/gpu-pipeline-source.yaml} here and
     * {@code gpu-pipeline-gpu.yaml} in a peer JVM on the same Vulkan device. Frames/s: frames over the run's
     * duration (the one-process graph's; the source graph's here, which ends when the peer confirmed the last
     * frame's arrival); the peer must verify exactly every frame.
     */
    private static Row splitPipeline(Path apps, int frames, PrintStream log) throws Exception {
        RunResult one = runApp(Graph.loader().file(apps.resolve("gpu-pipeline.yaml"))
                .param("source/count/count=" + frames)
                .param("verify/steps/codelet_params={expected_count: " + frames + "}"));
        double oneFps = frames * 1e9 / one.durationNs();
        log.printf(Locale.ROOT, "%-8s %-22s %d frames verified, %.3f ms%n", "one", SPLIT, frames,
                one.durationNs() / 1e6);
        int hostPort = freePort();
        int devicePort = freePort();
        String gpu = apps.resolve("distributed/gpu-pipeline-gpu.yaml").toString();
        // -Djkompute.net.bench.splitCapacity=N: both links' queues (and the device pool behind one) sized N
        // instead of the shipped apps' 2, to see how far the split pipeline is bound by credit round trips
        List<String> gpuArgs = new ArrayList<>(List.of("graph-file", gpu, "--param", "cpu/in/port=" + hostPort,
                "--param", "kernel/in/port=" + devicePort, "--param", "kernel/count/count=" + frames,
                "--param", "cpu/count/count=" + frames, "--param", "verify/count/count=" + frames,
                "--param", "verify/steps/codelet_params={expected_count: " + frames + "}"));
        Graph.Loader source = Graph.loader().file(apps.resolve("distributed/gpu-pipeline-source.yaml"))
                .param("source/host_out/port=" + hostPort).param("source/device_out/port=" + devicePort)
                .param("source/count/count=" + frames);
        Integer capacity = Integer.getInteger("jkompute.net.bench.splitCapacity");
        if (capacity != null) {
            gpuArgs.addAll(List.of("--param", "cpu/in/capacity=" + capacity, "--param", "kernel/in/capacity=" + capacity,
                    "--param", "kernel/in_pool/num_blocks=" + (2 * capacity + 8)));
            source.param("source/host_out/capacity=" + capacity).param("source/device_out/capacity=" + capacity);
            log.println("split GPU pipeline with link queues of " + capacity);
        }
        double splitFps;
        try (PeerProcess p = PeerProcess.start(gpuArgs.toArray(String[]::new))) {
            p.awaitLine("READY", 120);
            RunResult r = runApp(source);
            String done = p.awaitLine("DONE", 120 + frames / 100);
            if (!done.equals("DONE COMPLETED")) {
                throw new IllegalStateException("split GPU pipeline: the GPU side ended " + done);
            }
            p.awaitExit(120);
            splitFps = frames * 1e9 / r.durationNs();
            log.printf(Locale.ROOT, "%-8s %-22s %d frames verified, %.3f ms%n", "split", SPLIT, frames,
                    r.durationNs() / 1e6);
        }
        return new Row(SPLIT, "frames/s", oneFps, splitFps, 2L * frames);
    }

    private static RunResult runApp(Graph.Loader loader) {
        try (Graph g = loader.load()) {
            RunResult r = g.run();
            if (r.reason() != StopReason.COMPLETED) {
                throw new IllegalStateException("graph ended " + r.reason() + ": " + r.detail());
            }
            return r;
        }
    }

    /**
     * Round trips of {@code count} pings, after as many again that warm up both ends (the JIT compiles the path a
     * long-running app runs compiled; a ping's few thousand calls would otherwise be timed half interpreted): every
     * echo is checked, only the second half is timed.
     */
    private static List<Row> pingPong(int count, PrintStream log) throws Exception {
        double[][] q = new double[2][];
        long checked = 0;
        int total = 2 * count;
        for (String mode : List.of("raw", "graph")) {
            int there = freePort();
            int back = freePort();
            try (PeerProcess p = PeerProcess.start(mode + "-echo", Integer.toString(there), Integer.toString(back),
                    Integer.toString(total))) {
                p.awaitLine("READY", 120);
                long[] all = mode.equals("raw") ? rawPing(there, back, total) : graphPing(there, back, total);
                p.awaitLine("DONE", 300);
                p.awaitExit(120);
                checked += all.length;
                long[] rtt = Arrays.copyOfRange(all, count, total);
                Arrays.sort(rtt);
                q[mode.equals("raw") ? 0 : 1] = new double[] {
                    rtt[(int) (0.50 * (rtt.length - 1))] / 2e3, rtt[(int) (0.99 * (rtt.length - 1))] / 2e3};
                log.printf(Locale.ROOT, "%-8s %-22s %d round trips checked%n", mode, "ping-pong", all.length);
            }
        }
        return List.of(new Row("ping p50 per hop", "us", q[0][0], q[1][0], checked),
                new Row("ping p99 per hop", "us", q[0][1], q[1][1], checked));
    }

    // ---- raw Aeron -----------------------------------------------------------------------------------------

    static String channel(String host, int port) {
        return "aeron:udp?endpoint=" + host + ":" + port;
    }

    private static void offer(Publication pub, UnsafeBuffer b, int offset, int len) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long r;
        while ((r = pub.offer(b, offset, len)) < 0) {
            if (r == Publication.CLOSED || r == Publication.MAX_POSITION_EXCEEDED) {
                throw new IllegalStateException("raw publication failed: " + r);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("raw publication stuck (" + r + ")");
            }
            Thread.onSpinWait();
        }
    }

    private static void awaitConnected(Publication pub) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!pub.isConnected()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no subscriber at " + pub.channel());
            }
            Thread.onSpinWait();
        }
    }

    /** Sends {@code count} messages of {@code size} bytes in chunks, as the transmitter does: [seq][pattern][seq]. */
    static void rawSend(int port, long size, int count) {
        AeronTransport t = AeronTransport.acquire();
        try (Publication pub = t.aeron().addPublication(channel("127.0.0.1", port), STREAM)) {
            awaitConnected(pub);
            MemorySegment msg = Pattern.message(size);
            UnsafeBuffer view = new UnsafeBuffer(0, 0);
            for (long seq = 1; seq <= count; seq++) {
                Pattern.stamp(msg, seq);
                for (long pos = 0; pos < size; pos += CHUNK) {
                    int n = (int) Math.min(CHUNK, size - pos);
                    view.wrap(msg.address() + pos, n);
                    offer(pub, view, 0, n);
                }
            }
        } finally {
            t.release();
        }
    }

    /** jkompute's switch for the same-host path (the sender decides). */
    static final String SHARED = "jkompute.net.sharedMemory";

    /**
     * As {@link #rawSend} through Aeron IPC: this process connects a client to the peer's media driver (its private
     * folder, {@code dir}) and publishes on {@code aeron:ipc}, so the bytes go through that driver's shared log.
     */
    static void rawIpcSend(String dir, long size, int count) {
        try (io.aeron.Aeron aeron = io.aeron.Aeron.connect(new io.aeron.Aeron.Context().aeronDirectoryName(dir));
             Publication pub = aeron.addExclusivePublication("aeron:ipc", STREAM)) {
            awaitConnected(pub);
            MemorySegment msg = Pattern.message(size);
            UnsafeBuffer view = new UnsafeBuffer(0, 0);
            for (long seq = 1; seq <= count; seq++) {
                Pattern.stamp(msg, seq);
                for (long pos = 0; pos < size; pos += CHUNK) {
                    int n = (int) Math.min(CHUNK, size - pos);
                    view.wrap(msg.address() + pos, n);
                    offer(pub, view, 0, n);
                }
            }
        }
    }

    static long[] rawPing(int there, int back, int count) {
        AeronTransport t = AeronTransport.acquire();
        try (Publication pub = t.aeron().addPublication(channel("127.0.0.1", there), STREAM);
             Subscription sub = t.aeron().addSubscription(channel("127.0.0.1", back), STREAM)) {
            awaitConnected(pub);
            UnsafeBuffer b = new UnsafeBuffer(new byte[SMALL]);
            long[] rtt = new long[count];
            long[] got = new long[1];
            for (int i = 1; i <= count; i++) {
                b.putLong(0, i, ByteOrder.LITTLE_ENDIAN);
                b.putLong(SMALL - 8, i, ByteOrder.LITTLE_ENDIAN);
                long t0 = System.nanoTime();
                offer(pub, b, 0, SMALL);
                got[0] = 0;
                long deadline = t0 + TimeUnit.SECONDS.toNanos(30);
                while (got[0] == 0) {
                    sub.poll((buf, off, len, h) -> got[0] = buf.getLong(off, ByteOrder.LITTLE_ENDIAN), 1);
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("raw ping " + i + ": no echo");
                    }
                }
                rtt[i - 1] = System.nanoTime() - t0;
                if (got[0] != i) {
                    throw new IllegalStateException("raw ping " + i + ": echo of " + got[0]);
                }
            }
            return rtt;
        } finally {
            t.release();
        }
    }

    // ---- jkompute graphs -----------------------------------------------------------------------------------

    static Path yaml(String text) {
        try {
            Path f = Files.createTempFile("jkompute-netbench", ".yaml");
            Files.writeString(f, text);
            f.toFile().deleteOnExit();
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static final String SCHED = """
            ---
            name: sched
            components:
            - name: clock
              type: RealtimeClock
            - type: GreedyScheduler
              parameters: { clock: clock, max_duration_ms: 900000, stop_on_deadlock: false }
            """;

    /** System property carrying {@code --busy-poll-us} to this JVM's graphs and the peer's. */
    static final String BUSY_POLL = "jkompute.netbench.busyPollUs";

    static RunResult runGraph(String text) {
        long busy = Long.getLong(BUSY_POLL, 0);
        String context = busy <= 0 ? "" : """
                ---
                name: ucx
                components:
                - name: context
                  type: nvidia::gxf::UcxContext
                  parameters: { busy_poll_us: BUSY }
                """.replace("BUSY", Long.toString(busy));
        try (Graph g = Graph.loader().file(yaml(text + SCHED + context)).load()) {
            RunResult r = g.run();
            if (r.reason() != StopReason.COMPLETED) {
                throw new IllegalStateException("graph ended " + r.reason() + ": " + r.detail());
            }
            return r;
        }
    }

    /** Sends {@code count} messages of {@code size} bytes through a graph, {@code perTick} per tick of its codelet. */
    static void graphSend(int port, long size, int count, int perTick) {
        runGraph("""
                ---
                name: source
                components:
                - name: out
                  type: nvidia::gxf::UcxTransmitter
                  parameters: { receiver_address: 127.0.0.1, port: PORT, capacity: CAPACITY, policy: 2 }
                - type: DownstreamReceptiveSchedulingTerm
                  parameters: { transmitter: out, min_size: 1 }
                - type: CountSchedulingTerm
                  parameters: { count: COUNT }
                - name: source
                  type: JavaCodelet
                  parameters:
                    codelet_name: io.jkompute.net.bench.NetBenchmark$Source
                    codelet_params: { transmitter: out, bytes: SIZE, per_tick: PER_TICK }
                """.replace("PORT", Integer.toString(port)).replace("COUNT", Integer.toString(count / perTick))
                .replace("SIZE", Long.toString(size)).replace("CAPACITY", Integer.toString(Math.max(4, perTick)))
                .replace("PER_TICK", Integer.toString(perTick)));
    }

    static long[] graphPing(int there, int back, int count) {
        Pinger.last = null;
        runGraph("""
                ---
                name: ping
                components:
                - name: out
                  type: nvidia::gxf::UcxTransmitter
                  parameters: { receiver_address: 127.0.0.1, port: THERE, capacity: 1, policy: 2 }
                - name: in
                  type: nvidia::gxf::UcxReceiver
                  parameters: { port: BACK, capacity: 1, policy: 2 }
                - type: CountSchedulingTerm
                  parameters: { count: TICKS }
                - name: ping
                  type: JavaCodelet
                  parameters:
                    codelet_name: io.jkompute.net.bench.NetBenchmark$Pinger
                    codelet_params: { transmitter: out, receiver: in, count: COUNT }
                """.replace("THERE", Integer.toString(there)).replace("BACK", Integer.toString(back))
                .replace("TICKS", Integer.toString(count + 1)).replace("COUNT", Integer.toString(count)));
        return Pinger.last;
    }

    /**
     * Publishes message n = 1, 2, … holding one uint8 tensor "payload" of {@code bytes}: [n][pattern][n];
     * {@code per_tick} of them per tick (1).
     */
    public static class Source extends CodeletAdapter {
        /**
         * Creates the codelet with its parameters at their defaults; a {@code JavaCodelet} instantiates it and sets
         * them from the app.
         */
        public Source() {
        }

        private Transmitter tx;
        private final List<MemorySegment> ring = new ArrayList<>();
        private long n;
        private long perTick;

        @Override
        public void start() {
            tx = transmitter(param("transmitter"));
            long bytes = longParam("bytes");
            perTick = params().containsKey("per_tick") ? longParam("per_tick") : 1;
            // a few buffers in turn, at least two ticks' worth: a message's tensor is read when the transmitter sends
            // it after the tick, and the receiver's checks would catch one overwritten too early
            for (long i = 0, n = bytes >= (16 << 20) ? 3 : Math.max(8, 2 * perTick); i < n; i++) {
                ring.add(Pattern.message(bytes));
            }
        }

        @Override
        public void tick() {
            for (long k = 0; k < perTick; k++) {
                n++;
                MemorySegment m = ring.get((int) (n % ring.size()));
                Pattern.stamp(m, n);
                tx.publish(Message.create().add("payload", HostTensor.wrap(m, DataType.UINT8, m.byteSize())));
            }
        }
    }

    /** Checks each message as {@code Pattern.check} does and prints DONE count elapsed_ns at the end. */
    public static class Sink extends CodeletAdapter {
        /**
         * Creates the codelet with its parameters at their defaults; a {@code JavaCodelet} instantiates it and sets
         * them from the app.
         */
        public Sink() {
        }

        private Receiver rx;
        private Pattern.Checker checker;
        private long first;
        private long last;

        @Override
        public void start() {
            rx = receiver(param("receiver"));
            checker = new Pattern.Checker(longParam("bytes"));
        }

        @Override
        public void tick() {
            Message m = rx.receive();
            if (m == null) {
                throw new IllegalStateException("no message at tick " + executionCount());
            }
            long now = System.nanoTime();
            if (first == 0) {
                first = now;
            }
            checker.check(m.get(HostTensor.class, "payload").data());
            last = now;
        }

        @Override
        public void stop() {
            // from message 1 in hand to the last in hand, as the raw sink measures
            System.out.println("DONE " + checker.count + " " + Math.max(1, last - first));
            System.out.flush();
        }
    }

    /**
     * Ping-pong in a graph: tick k waits for the echo of ping k−1 (syncing its receiver inside the tick), then
     * publishes ping k; the transmitter sends it when the tick ends. The round trip therefore includes the
     * scheduler's step between ticks, as an app's would.
     */
    public static class Pinger extends CodeletAdapter {
        /**
         * Creates the codelet with its parameters at their defaults; a {@code JavaCodelet} instantiates it and sets
         * them from the app.
         */
        public Pinger() {
        }

        static volatile long[] last;
        private Transmitter tx;
        private Receiver rx;
        private long[] rtt;
        private int count;
        private long sentAt;
        private int k;

        @Override
        public void start() {
            tx = transmitter(param("transmitter"));
            rx = receiver(param("receiver"));
            count = (int) longParam("count");
            rtt = new long[count];
        }

        @Override
        public void tick() {
            if (k > 0) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                Message m;
                while (true) {
                    rx.sync();
                    m = rx.receive();
                    if (m != null) {
                        break;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("no echo of ping " + k);
                    }
                    Thread.onSpinWait();
                }
                rtt[k - 1] = System.nanoTime() - sentAt;
                long got = m.get(HostTensor.class, "payload").data().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                if (got != k) {
                    throw new IllegalStateException("echo of " + got + " for ping " + k);
                }
            }
            if (k < count) {
                k++;
                MemorySegment s = Arena.ofAuto().allocate(SMALL, 8);
                s.set(ValueLayout.JAVA_LONG, 0, k);
                s.set(ValueLayout.JAVA_LONG, SMALL - 8, k);
                tx.publish(Message.create().add("payload", HostTensor.wrap(s, DataType.UINT8, SMALL)));
                sentAt = System.nanoTime();
            }
        }

        @Override
        public void stop() {
            last = rtt;
        }
    }

    // ---- payload pattern -----------------------------------------------------------------------------------

    /**
     * Message content: its number in the first and last 8 bytes (little-endian), byte i = (i·31 + 7) mod 256 between.
     */
    static final class Pattern {
        private Pattern() {
        }

        static MemorySegment message(long size) {
            MemorySegment m = Arena.ofAuto().allocate(Math.max(size, 16), 64).asSlice(0, size);
            // the pattern repeats every 256 bytes: write one period, then double the written prefix (memcpy speed)
            long done = Math.min(size, 256);
            for (long i = 0; i < done; i++) {
                m.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            }
            while (done < size) {
                long n = Math.min(done, size - done);
                MemorySegment.copy(m, 0, m, done, n);
                done += n;
            }
            return m;
        }

        static void stamp(MemorySegment m, long seq) {
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, m.byteSize() - 8, seq);
        }

        /**
         * Checks messages in order: count, sequence, stamps and CRC32Cs of the middle against the pattern's. The
         * middle is checked in 4 MiB pieces, on several threads for large messages: one thread's CRC32C runs at
         * about the speed of one thread's memcpy, so a single-threaded check would measure the checker, not the
         * link. Every byte is still checked, for the raw loops and the graphs alike.
         */
        static final class Checker {
            static final long PIECE = 4L << 20;
            final long size;
            final long[] expected;
            long count;

            Checker(long size) {
                this.size = size;
                expected = crcs(message(size));
            }

            private static long[] crcs(MemorySegment m) {
                long middle = Math.max(0, m.byteSize() - 16);
                int pieces = (int) Math.max(1, (middle + PIECE - 1) / PIECE);
                long[] out = new long[pieces];
                java.util.stream.IntStream range = java.util.stream.IntStream.range(0, pieces);
                (pieces > 2 ? range.parallel() : range).forEach(i -> {
                    CRC32C c = new CRC32C();
                    long from = 8 + i * PIECE;
                    long n = Math.min(PIECE, middle - i * PIECE);
                    if (n > 0) {
                        c.update(m.asSlice(from, n).asByteBuffer());
                    }
                    out[i] = c.getValue();
                });
                return out;
            }

            void check(MemorySegment m) {
                long seq = count + 1;
                if (m.byteSize() != size) {
                    throw new IllegalStateException("message " + seq + ": " + m.byteSize() + " bytes, expected " + size);
                }
                long head = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                long tail = m.get(ValueLayout.JAVA_LONG_UNALIGNED, size - 8);
                if (head != seq || tail != seq) {
                    throw new IllegalStateException("message " + seq + " expected, got " + head + "/" + tail
                            + " (lost, reordered or overwritten)");
                }
                if (!Arrays.equals(crcs(m), expected)) {
                    throw new IllegalStateException("message " + seq + ": content checksum mismatch");
                }
                count++;
            }
        }
    }

    // ---- the peer JVM ---------------------------------------------------------------------------------------

    static int freePort() {
        try (DatagramSocket s = new DatagramSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The other end of each case, in its own JVM. Prints READY when listening and DONE … when finished. One peer JVM
     * serves the cases one after another (a job per line on its standard input, tab-separated arguments; {@code EXIT
     * <status>} after each): a JVM and its Aeron driver start once per benchmark, not twice per case, and every case
     * meets a peer whose JIT has warmed up as a long-running app's would. It ends at the end of its input.
     */
    static final class Peer {
        private Peer() {
        }

        static int serve() throws IOException {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String job;
            while ((job = in.readLine()) != null) {
                int status;
                try {
                    status = main(job.split("\t"));
                } catch (Throwable e) {
                    e.printStackTrace(System.out);
                    status = 1;
                }
                System.out.println("EXIT " + status);
                System.out.flush();
                if (status != 0) {
                    return status; // a failed job may have left threads or a driver behind: the next one gets a new JVM
                }
            }
            return 0;
        }

        static int main(String[] a) throws Exception {
            switch (a[0]) {
                case "raw-sink" -> rawSink(Integer.parseInt(a[1]), Long.parseLong(a[2]), Integer.parseInt(a[3]));
                case "raw-ipc-sink" -> rawSink(-1, Long.parseLong(a[2]), Integer.parseInt(a[3]));
                case "graph-sink" -> graphSink(Integer.parseInt(a[1]), Long.parseLong(a[2]), Integer.parseInt(a[3]),
                        Integer.parseInt(a[4]));
                case "raw-echo" -> rawEcho(Integer.parseInt(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]));
                case "graph-echo" -> graphEcho(Integer.parseInt(a[1]), Integer.parseInt(a[2]),
                        Integer.parseInt(a[3]));
                case "graph-file" -> graphFile(Arrays.copyOfRange(a, 1, a.length));
                default -> throw new IllegalArgumentException("unknown peer role " + a[0]);
            }
            System.out.flush();
            return 0;
        }

        /** A raw sink on UDP {@code port}, or on Aeron IPC for port −1 (READY names this driver's folder). */
        static void rawSink(int port, long size, int count) {
            AeronTransport t = AeronTransport.acquire();
            try (Subscription sub = t.aeron().addSubscription(port < 0 ? "aeron:ipc" : channel("127.0.0.1", port),
                    STREAM)) {
                System.out.println(port < 0 ? "READY " + t.driverDirectory() : "READY");
                System.out.flush();
                Pattern.Checker checker = new Pattern.Checker(size);
                MemorySegment msg = Arena.ofAuto().allocate(Math.max(size, 16), 64).asSlice(0, size);
                long[] pos = new long[1];
                long[] first = new long[1];
                long[] last = new long[1];
                // chunks arrive in order on one publication: fill the message, check it when full
                io.aeron.logbuffer.FragmentHandler h = (DirectBuffer b, int off, int len, io.aeron.logbuffer.Header hd) -> {
                    b.getBytes(off, msg.asSlice(pos[0], len).asByteBuffer(), len);
                    pos[0] += len;
                    if (pos[0] == size) {
                        checker.check(msg);
                        pos[0] = 0;
                        last[0] = System.nanoTime();
                        if (first[0] == 0) {
                            first[0] = last[0];
                        }
                    }
                };
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
                while (checker.count < count) {
                    if (sub.poll(h, 64) == 0) {
                        Thread.onSpinWait();
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("raw sink: " + checker.count + " of " + count);
                    }
                }
                System.out.println("DONE " + checker.count + " " + Math.max(1, last[0] - first[0]));
            } finally {
                t.release();
            }
        }

        static void graphSink(int port, long size, int count, int capacity) throws InterruptedException {
            Thread ready = readyWhenListening();
            runGraph("""
                    ---
                    name: sink
                    components:
                    - name: in
                      type: nvidia::gxf::UcxReceiver
                      parameters: { port: PORT, capacity: CAPACITY, policy: 2 }
                    - type: MessageAvailableSchedulingTerm
                      parameters: { receiver: in, min_size: 1 }
                    - type: CountSchedulingTerm
                      parameters: { count: COUNT }
                    - name: sink
                      type: JavaCodelet
                      parameters:
                        codelet_name: io.jkompute.net.bench.NetBenchmark$Sink
                        codelet_params: { receiver: in, bytes: SIZE }
                    """.replace("PORT", Integer.toString(port)).replace("COUNT", Integer.toString(count))
                    .replace("SIZE", Long.toString(size)).replace("CAPACITY", Integer.toString(capacity)));
            ready.join();
        }

        static void rawEcho(int there, int back, int count) {
            AeronTransport t = AeronTransport.acquire();
            try (Subscription sub = t.aeron().addSubscription(channel("127.0.0.1", there), STREAM);
                 Publication pub = t.aeron().addPublication(channel("127.0.0.1", back), STREAM)) {
                System.out.println("READY");
                System.out.flush();
                awaitConnected(pub);
                UnsafeBuffer copy = new UnsafeBuffer(new byte[SMALL]);
                long[] n = new long[1];
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
                while (n[0] < count) {
                    sub.poll((b, off, len, h) -> {
                        long seq = b.getLong(off, ByteOrder.LITTLE_ENDIAN);
                        if (seq != n[0] + 1 || len != SMALL || b.getLong(off + SMALL - 8, ByteOrder.LITTLE_ENDIAN) != seq) {
                            throw new IllegalStateException("raw echo: ping " + seq + " (" + len + " bytes) after "
                                    + n[0]);
                        }
                        n[0]++;
                        copy.putBytes(0, b, off, len);
                        offer(pub, copy, 0, len);
                    }, 1);
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("raw echo: " + n[0] + " of " + count);
                    }
                }
                System.out.println("DONE " + n[0]);
            } finally {
                t.release();
            }
        }

        static void graphEcho(int there, int back, int count) throws InterruptedException {
            Thread ready = readyWhenListening();
            runGraph("""
                    ---
                    name: echo
                    components:
                    - name: in
                      type: nvidia::gxf::UcxReceiver
                      parameters: { port: THERE, capacity: 1, policy: 2 }
                    - name: out
                      type: nvidia::gxf::UcxTransmitter
                      parameters: { receiver_address: 127.0.0.1, port: BACK, capacity: 1, policy: 2 }
                    - type: MessageAvailableSchedulingTerm
                      parameters: { receiver: in, min_size: 1 }
                    - type: DownstreamReceptiveSchedulingTerm
                      parameters: { transmitter: out, min_size: 1 }
                    - type: CountSchedulingTerm
                      parameters: { count: COUNT }
                    - name: forward
                      type: Forward
                      parameters: { in: in, out: out }
                    """.replace("THERE", Integer.toString(there)).replace("BACK", Integer.toString(back))
                    .replace("COUNT", Integer.toString(count)));
            System.out.println("DONE " + count);
            ready.join();
        }

        /** An app file with {@code --param} overrides: READY once loaded (listening), DONE <stop reason> at the end. */
        static void graphFile(String[] a) {
            Graph.Loader loader = Graph.loader().file(Path.of(a[0]));
            for (int i = 1; i + 1 < a.length; i += 2) {
                loader.param(a[i + 1]);
            }
            try (Graph g = loader.load()) {
                System.out.println("READY");
                System.out.flush();
                RunResult r = g.run();
                System.out.println("DONE " + r.reason() + (r.reason() == StopReason.COMPLETED ? "" : " " + r.detail()));
            }
        }

        /** The receivers listen once the graph is loaded; the sender retries until linked anyway. */
        private static Thread readyWhenListening() {
            return Thread.ofPlatform().start(() -> {
                System.out.println("READY");
                System.out.flush();
            });
        }
    }

    /**
     * A job in a peer JVM (this JVM's java, options and class path; output read line by line): {@link #start} hands
     * the job to the idle peer, or starts one; {@link #close} after a clean {@link #awaitExit} keeps the peer for the
     * next job, anything else ends it.
     */
    static final class PeerProcess implements AutoCloseable {
        private static PeerProcess idle;
        private final Process process;
        private final Writer jobs;
        private final List<String> lines = new ArrayList<>();
        /** The first line of the current job's output. */
        private int from;
        private boolean ended;

        private PeerProcess(Process p) {
            process = p;
            jobs = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
            Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String l;
                    while ((l = r.readLine()) != null) {
                        synchronized (lines) {
                            lines.add(l);
                            lines.notifyAll();
                        }
                    }
                } catch (IOException ignored) {
                    // gone
                }
            });
        }

        static PeerProcess start(String... args) throws IOException {
            PeerProcess p;
            synchronized (PeerProcess.class) {
                p = idle;
                idle = null;
            }
            if (p == null || !p.process.isAlive()) {
                List<String> cmd = ChildJvm.javaAndOptions("-Xmx");
                cmd.addAll(List.of("-Xmx1g", "-D" + BUSY_POLL + "=" + Long.getLong(BUSY_POLL, 0), "-cp",
                        ChildJvm.classPath(), NetBenchmark.class.getName(), "--peer"));
                p = new PeerProcess(new ProcessBuilder(cmd).redirectErrorStream(true).start());
            }
            synchronized (p.lines) {
                p.from = p.lines.size();
            }
            p.jobs.write(String.join("\t", args) + "\n");
            p.jobs.flush();
            return p;
        }

        String awaitLine(String prefix, long seconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            synchronized (lines) {
                while (true) {
                    for (String l : job()) {
                        if (l.startsWith(prefix)) {
                            return l;
                        }
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0 || !process.isAlive()) {
                        if (process.isAlive()) {
                            // a stuck peer: its thread dump (SIGQUIT, printed to its stdout) goes into the error
                            try {
                                new ProcessBuilder("kill", "-3", Long.toString(process.pid())).start()
                                        .waitFor(5, TimeUnit.SECONDS);
                            } catch (IOException e) {
                                // no kill command: the error has the output so far
                            }
                            // the dump comes line by line: wait until it stops growing (at most 5 s)
                            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                            int seen = -1;
                            while (seen != lines.size() && System.nanoTime() < until) {
                                seen = lines.size();
                                lines.wait(500);
                            }
                        }
                        // one last look: the line may have come with the exit
                        lines.wait(200);
                        for (String l : job()) {
                            if (l.startsWith(prefix)) {
                                return l;
                            }
                        }
                        throw new IllegalStateException("peer: no '" + prefix + "' line (exit "
                                + (process.isAlive() ? "-" : process.exitValue()) + "); output:\n"
                                + String.join("\n", job()));
                    }
                    lines.wait(Math.max(1, Math.min(200, left / 1_000_000)));
                }
            }
        }

        /** The current job's output so far; called holding {@code lines}. */
        private List<String> job() {
            return lines.subList(from, lines.size());
        }

        /** Waits for the job to end; throws with its output unless it ended with status 0. */
        void awaitExit(long seconds) throws InterruptedException {
            String exit = awaitLine("EXIT ", seconds);
            if (!exit.equals("EXIT 0")) {
                synchronized (lines) {
                    throw new IllegalStateException("peer did not end cleanly; output:\n" + String.join("\n", job()));
                }
            }
            ended = true;
        }

        @Override
        public void close() {
            synchronized (PeerProcess.class) {
                if (ended && idle == null && process.isAlive()) {
                    ended = false;
                    idle = this;
                    return;
                }
            }
            process.destroyForcibly();
        }
    }
}

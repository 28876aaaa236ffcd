package io.jkompute.net.bench;

import io.jkompute.DataType;
import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.DeviceMemory;
import io.jkompute.cuda.Stream;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.Component;
import io.jkompute.graph.Entity;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import io.jkompute.graph.StorageType;
import io.jkompute.graph.Transmitter;
import io.jkompute.net.UcxReceiver;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;

/**
 * CUDA device tensors between two processes on one GPU, through a link: a sending app whose tensors are blocks of a
 * CUDA {@code BlockMemoryPool}, a receiving app whose {@code UcxReceiver} has a CUDA pool of its own (so the tensors
 * go by reference, one device-to-device copy through CUDA IPC), and NetBenchmark's row for it against a
 * {@code cuMemcpyDtoD} of the same size in the same run. Every element of a checked message is compared with the
 * pattern its sender wrote.
 */
public final class DeviceIpc {
    private DeviceIpc() {
    }

    /** NetBenchmark's name for the row ({@code --only device}). */
    public static final String ROW = "device 64 MiB, CUDA IPC";

    /** The int at {@code index} of a tensor filled for {@code seed}: different per position and per seed. */
    public static int pattern(long seed, long index) {
        return (int) (seed * 0x9E3779B1L) + (int) index * 7 + 1;
    }

    static MemorySegment fill(MemorySegment s, long seed) {
        long n = s.byteSize() / 4;
        for (long i = 0; i < n; i++) {
            s.setAtIndex(ValueLayout.JAVA_INT, i, pattern(seed, i));
        }
        return s;
    }

    /** The first int of {@code s} that is not the pattern for {@code seed}, or -1. */
    static long mismatch(MemorySegment s, long seed) {
        long n = s.byteSize() / 4;
        for (long i = 0; i < n; i++) {
            if (s.getAtIndex(ValueLayout.JAVA_INT, i) != pattern(seed, i)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The sending app: {@code count} messages of one int32 tensor of {@code bytes} from a CUDA pool of
     * {@code blocks} blocks, to a receiver on this host at {@code port}. {@code fresh}: every message filled anew with
     * its own pattern (so a block reused before the receiver copied it shows); else each block once, before the run.
     */
    public static String senderApp(int port, long bytes, int count, int capacity, int blocks, boolean fresh) {
        return senderApp(port, bytes, count, capacity, blocks, Source.class.getName(),
                "bytes: " + bytes + ", blocks: " + blocks + ", fresh: " + (fresh ? 1 : 0));
    }

    /**
     * The sending app around any codelet: a CUDA pool of {@code blocks} blocks of {@code bytes}, a UcxTransmitter
     * to {@code port} on this host with a remote queue of {@code capacity}, {@code count} ticks of {@code codelet},
     * which gets the transmitter ({@code out}), the allocator ({@code pool}) and {@code params} (YAML flow-map
     * entries).
     */
    public static String senderApp(int port, long bytes, int count, int capacity, int blocks, String codelet,
                                   String params) {
        return """
                ---
                name: source
                components:
                - name: pool
                  type: BlockMemoryPool
                  parameters: { storage_type: 1, block_size: BYTES, num_blocks: BLOCKS }
                - name: out
                  type: nvidia::gxf::UcxTransmitter
                  parameters: { receiver_address: 127.0.0.1, port: PORT, capacity: CAP, policy: 2 }
                - type: DownstreamReceptiveSchedulingTerm
                  parameters: { transmitter: out, min_size: 1 }
                - type: MemoryAvailableSchedulingTerm
                  parameters: { allocator: pool, min_blocks: 1 }
                - type: CountSchedulingTerm
                  parameters: { count: COUNT }
                - name: source
                  type: JavaCodelet
                  parameters:
                    codelet_name: CODELET
                    codelet_params: { transmitter: out, allocator: pool, PARAMS }
                """.replace("PORT", Integer.toString(port)).replace("COUNT", Integer.toString(count))
                .replace("BYTES", Long.toString(bytes)).replace("BLOCKS", Integer.toString(blocks))
                .replace("CAP", Integer.toString(capacity)).replace("CODELET", codelet).replace("PARAMS", params)
                + NetBenchmark.SCHED;
    }

    /**
     * The receiving app: a UcxReceiver at {@code port} with a CUDA pool of capacity + 3 blocks, and a sink that
     * checks message order, that every tensor is on the device, and the contents of message 1, the last, and every
     * {@code checkEvery}-th (0: none between); it prints {@code DONE count ns checked freeAtATenth freeAtEnd} (the GPU's free
     * memory, cuMemGetInfo).
     */
    public static String receiverApp(int port, long bytes, int count, int capacity, int checkEvery) {
        return """
                ---
                name: sink
                components:
                - name: pool
                  type: BlockMemoryPool
                  parameters: { storage_type: 1, block_size: BYTES, num_blocks: BLOCKS }
                - name: in
                  type: nvidia::gxf::UcxReceiver
                  parameters: { port: PORT, capacity: CAP, policy: 2, allocator: pool }
                - type: MessageAvailableSchedulingTerm
                  parameters: { receiver: in, min_size: 1 }
                - type: CountSchedulingTerm
                  parameters: { count: COUNT }
                - name: sink
                  type: JavaCodelet
                  parameters:
                    codelet_name: io.jkompute.net.bench.DeviceIpc$Sink
                    codelet_params: { receiver: in, bytes: BYTES, count: COUNT, check_every: EVERY }
                """.replace("PORT", Integer.toString(port)).replace("COUNT", Integer.toString(count))
                .replace("BYTES", Long.toString(bytes)).replace("BLOCKS", Integer.toString(capacity + 3))
                .replace("CAP", Integer.toString(capacity)).replace("EVERY", Integer.toString(checkEvery))
                + NetBenchmark.SCHED;
    }

    /** Publishes message n = 1, 2, … with one int32 tensor "payload" from the pool, "seq" n and "seed" (its pattern). */
    public static class Source extends CodeletAdapter {
        /** Made by a JavaCodelet, which sets its parameters from the app. */
        public Source() {
        }

        private Transmitter tx;
        private Allocator pool;
        private long ints;
        private boolean fresh;
        private Arena arena;
        private MemorySegment host;
        private final Map<String, Long> filled = new HashMap<>();
        private long n;

        @Override
        public void start() {
            tx = transmitter(param("transmitter"));
            pool = allocator(param("allocator"));
            ints = longParam("bytes") / 4;
            fresh = longParam("fresh") != 0;
            arena = Arena.ofShared();
            host = arena.allocate(ints * 4, 64);
            if (!fresh) {
                // every block of the pool filled once, up front (a pool keeps a block's contents between loans), so
                // the run moves tensors and nothing else
                int blocks = (int) longParam("blocks");
                List<GraphTensor> all = new ArrayList<>();
                try {
                    for (int i = 0; i < blocks; i++) {
                        GraphTensor t = GraphTensor.allocate(pool, StorageType.DEVICE, DataType.INT32, ints);
                        all.add(t);
                        long seed = 1000L + i;
                        t.copyFromHost(fill(host, seed));
                        t.ipcRegion().ifPresent(r -> filled.put(HexFormat.of().formatHex(r.handle()), seed));
                    }
                } finally {
                    all.forEach(GraphTensor::close);
                }
            }
        }

        @Override
        public void tick() {
            n++;
            GraphTensor t = GraphTensor.allocate(pool, StorageType.DEVICE, DataType.INT32, ints);
            try {
                long seed;
                if (fresh) {
                    seed = n;
                    t.copyFromHost(fill(host, seed));
                } else {
                    // each block filled once, known by its buffer's handle
                    String block = t.ipcRegion().map(r -> HexFormat.of().formatHex(r.handle())).orElse(null);
                    Long s = block == null ? null : filled.get(block);
                    if (s == null) {
                        s = 1000L + filled.size();
                        t.copyFromHost(fill(host, s));
                        if (block != null) {
                            filled.put(block, s);
                        }
                    }
                    seed = s;
                }
                // the tick's time: both processes read the same monotonic clock, so the receiver can tell the
                // sender's pace from the link's delay (Sink's STAGES line)
                tx.publish(Message.create().add("payload", t).add("seq", Long.toString(n))
                        .add("seed", Long.toString(seed)).add("sent_ns", Long.toString(System.nanoTime())));
            } catch (RuntimeException e) {
                t.close();
                throw e;
            }
        }

        @Override
        public void stop() {
            if (arena != null) {
                arena.close();
                arena = null;
            }
        }
    }

    /** Checks order, storage and (as configured) contents of each message; see {@link #receiverApp}. */
    public static class Sink extends CodeletAdapter {
        /** Made by a JavaCodelet, which sets its parameters from the app. */
        public Sink() {
        }

        /** The last run's figures in this JVM (see {@link #figures()}). */
        static volatile long[] last;
        /** The last run's STAGES line (see {@link #stages()}), or null. */
        static volatile String lastStages;

        /**
         * Where the timed window's time went, from the sender's tick times carried in the messages and this side's:
         * percentiles (p50/p90/p99, µs) of the time from the sender's tick to the receiver's, of the gaps between the
         * sender's ticks and of the gaps between the receiver's; null before a run or when the sender sent no times.
         */
        public static String stages() {
            return lastStages;
        }

        /**
         * The last run's figures in this JVM: count, ns from the timed window's first message to the last, messages
         * checked in full, free device memory after a tenth of the messages and at the end, the window's first
         * message (a fifth into the run); null before a run.
         */
        public static long[] figures() {
            long[] f = last;
            return f == null ? null : f.clone();
        }

        private Receiver rx;
        private long bytes;
        private long count;
        private long every;
        private long n;
        private long checked;
        private long from;
        private long tFrom;
        private long tLast;
        private long free1;
        private long freeEnd;
        private long[] sentAt;
        private long[] tickAt;

        @Override
        public void start() {
            rx = receiver(param("receiver"));
            bytes = longParam("bytes");
            count = longParam("count");
            every = longParam("check_every");
            // timed from a fifth of the run: the sender's buffers are opened here (once each) by then
            from = Math.max(2, count / 5);
            sentAt = new long[(int) Math.min(count + 1, 1_000_001)];
            tickAt = new long[sentAt.length];
        }

        @Override
        public void tick() {
            long now = System.nanoTime();
            Message m = rx.receive();
            if (m == null) {
                throw new IllegalStateException("no message at tick " + executionCount());
            }
            n++;
            if (n == from) {
                tFrom = now;
            }
            tLast = now;
            String sent = m.get(String.class, "sent_ns");
            if (n < sentAt.length) {
                sentAt[(int) n] = sent == null ? 0 : Long.parseLong(sent);
                tickAt[(int) n] = now;
            }
            long seq = Long.parseLong(m.get(String.class, "seq"));
            if (seq != n) {
                throw new IllegalStateException("message " + seq + " arrived as the " + n + "th");
            }
            GraphTensor t = m.get(GraphTensor.class, "payload");
            if (t.storage() != StorageType.DEVICE || t.byteSize() != bytes) {
                throw new IllegalStateException("message " + n + ": " + t.storage() + " tensor of " + t.byteSize()
                        + " bytes, expected " + bytes + " on the device");
            }
            if (n == 1 || n == count || (every > 0 && n % every == 0)) {
                long seed = Long.parseLong(m.get(String.class, "seed"));
                try (Arena a = Arena.ofConfined()) {
                    long at = mismatch(t.toHost(a), seed);
                    if (at >= 0) {
                        throw new IllegalStateException("message " + n + ": int " + at + " is not its sender's");
                    }
                }
                checked++;
            }
            if (n == Math.max(1, count / 10)) {
                // after a tenth of the run: what the first messages set up (contexts, mappings) is in place
                free1 = Cuda.memoryInfo().free();
            }
            if (n == count) {
                freeEnd = Cuda.memoryInfo().free();
            }
        }

        @Override
        public void stop() {
            long ns = Math.max(1, tLast - tFrom);
            last = new long[] {n, ns, checked, free1, freeEnd, from};
            lastStages = stagesOf(sentAt, tickAt, from, Math.min(n, sentAt.length - 1));
            System.out.println("DONE " + n + " " + ns + " " + checked + " " + free1 + " " + freeEnd + " " + from);
            System.out.flush();
        }
    }

    /** The STAGES line for messages {@code from}..{@code to} (see {@link Sink#stages()}), or null. */
    static String stagesOf(long[] sentAt, long[] tickAt, long from, long to) {
        int k = (int) (to - from);
        if (k < 2) {
            return null;
        }
        long[] delay = new long[k + 1];
        long[] sendGap = new long[k];
        long[] tickGap = new long[k];
        for (int i = 0; i <= k; i++) {
            int at = (int) from + i;
            if (sentAt[at] == 0) {
                return null;
            }
            delay[i] = tickAt[at] - sentAt[at];
            if (i > 0) {
                sendGap[i - 1] = sentAt[at] - sentAt[at - 1];
                tickGap[i - 1] = tickAt[at] - tickAt[at - 1];
            }
        }
        return "STAGES (us p50/p90/p99) sender tick to receiver tick " + percentiles(delay) + ", between sender ticks "
                + percentiles(sendGap) + ", between receiver ticks " + percentiles(tickGap);
    }

    private static String percentiles(long[] ns) {
        long[] s = ns.clone();
        Arrays.sort(s);
        return String.format(Locale.ROOT, "%.1f/%.1f/%.1f", s[s.length / 2] / 1e3, s[(int) (s.length * 0.9)] / 1e3,
                s[Math.min(s.length - 1, (int) (s.length * 0.99))] / 1e3);
    }

    /** Why the row cannot run here, or null. */
    public static String unavailable() {
        String why;
        try {
            why = Cuda.unavailableReason();
        } catch (LinkageError e) {
            return "jkompute-cuda is not on the class path";
        }
        if (why == null && Graph.class.getClassLoader().getResource("io/jkompute/graph/cuda/CudaMemory.class") == null
                && !ModuleLayer.boot().findModule("io.jkompute.graph.cuda").isPresent()) {
            return "jkompute-graph-cuda (CUDA device memory for graphs) is not on the class path";
        }
        return why;
    }

    /**
     * The row: {@code count} 64 MiB device tensors from a peer JVM into this one (capacity 4, contents of the first
     * and last checked, order and storage of all), against the median of 200 {@code cuMemcpyDtoD}s of 64 MiB here.
     */
    static NetBenchmark.Row row(int count, PrintStream log) throws Exception {
        long bytes = 64L << 20;
        double dtod = dtodGBs(bytes, 200);
        int port = NetBenchmark.freePort();
        int capacity = 4;
        Sink.last = null;
        Sink.lastStages = null;
        String link;
        try (NetBenchmark.PeerProcess p = NetBenchmark.PeerProcess.start("graph-file",
                NetBenchmark.yaml(senderApp(port, bytes, count, capacity, capacity + 4, false)).toString())) {
            p.awaitLine("READY", 120);
            try (Graph g = Graph.loader().file(NetBenchmark.yaml(receiverApp(port, bytes, count, capacity, 0))).load()) {
                RunResult r = g.run();
                if (r.reason() != StopReason.COMPLETED) {
                    throw new IllegalStateException("device IPC sink ended " + r.reason() + ": " + r.detail());
                }
                link = linkOf(g);
            }
            String done = p.awaitLine("DONE", 120);
            if (!done.equals("DONE COMPLETED")) {
                throw new IllegalStateException("device IPC source ended " + done);
            }
            p.awaitExit(60);
        }
        long[] f = Sink.last;
        if (f == null || f[0] != count) {
            throw new IllegalStateException(ROW + ": " + (f == null ? 0 : f[0]) + " of " + count + " arrived");
        }
        if (!link.contains(count + " device tensors by reference")) {
            throw new IllegalStateException(ROW + ": the tensors did not go by reference: " + link);
        }
        double gbs = (count - f[5]) * (double) bytes / f[1];
        log.printf(Locale.ROOT, "%-8s %-22s %d messages (%d checked in full), %.3f ms, DtoD %.1f GB/s, link %.1f GB/s%n",
                "device", ROW, count, f[2], f[1] / 1e6, dtod, gbs);
        log.println("link " + link);
        String stages = Sink.stages();
        if (stages != null) {
            log.println(stages);
        }
        return new NetBenchmark.Row(ROW, "GB/s", dtod, gbs, f[2]);
    }

    private static String linkOf(Graph g) {
        for (Entity e : g.entities()) {
            for (Component c : e.components()) {
                if (c instanceof UcxReceiver r) {
                    return r.linkStatistics().toString();
                }
            }
        }
        return "";
    }

    /** GB/s of one {@code cuMemcpyDtoD} of {@code bytes} on a stream, waited for: the median of {@code iters}. */
    static double dtodGBs(long bytes, int iters) {
        try (DeviceMemory src = DeviceMemory.allocate(bytes); DeviceMemory dst = DeviceMemory.allocate(bytes);
                Stream s = Stream.create(true)) {
            src.memset((byte) 7);
            for (int i = 0; i < 10; i++) {
                dst.copyFromAsync(src, 0, 0, bytes, s);
                s.synchronize();
            }
            double[] ns = new double[iters];
            for (int i = 0; i < iters; i++) {
                long t = System.nanoTime();
                dst.copyFromAsync(src, 0, 0, bytes, s);
                s.synchronize();
                ns[i] = System.nanoTime() - t;
            }
            Arrays.sort(ns);
            return bytes / ns[iters / 2];
        }
    }
}

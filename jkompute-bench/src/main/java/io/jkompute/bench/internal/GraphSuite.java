package io.jkompute.bench.internal;

import io.jkompute.DataType;
import io.jkompute.Manager;
import io.jkompute.MemoryType;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Sequence;
import io.jkompute.Tensor;
import io.jkompute.bench.Figure;
import io.jkompute.bench.PipelineLoop;
import io.jkompute.bench.Summary;
import io.jkompute.graph.Codelet;
import io.jkompute.graph.Component;
import io.jkompute.graph.Entity;
import io.jkompute.graph.Graph;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.Transmitter;
import io.jkompute.graph.std.StreamGenerator;
import io.jkompute.graph.std.VerifyEqual;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Suite 5, the graph runtime. Ping: tx → rx on the Greedy scheduler, lock-step (queue capacity 1) and buffered (64),
 * and 4 independent tx → rx pairs (capacity 64, so more workers have work) on MultiThread and EventBased with 1, 2 and 4
 * workers; messages per second and per-hop latency (publish → receive on the realtime clock), against the scheduler
 * goals (Greedy 2 M msg/s and 0.5 µs p50 per hop; 2 workers 1 M msg/s); every message carries its sequence number and
 * must arrive once, in order, on every pair. Pipeline: {@code apps/gpu-pipeline.yaml} (StreamGenerator → Vulkan kernel and
 * CPU reference → VerifyEqual) in frames per second, lock-step and with 2 frames in flight (the GPU works on the next
 * frames while the host compares one), each against the transfer-bound limit: the frame's two uploads and one
 * read-back, timed the way suite 4 times them (recorded {@code OpSyncDevice} / {@code OpSyncLocal} sequences).
 */
public final class GraphSuite implements Suite {
    static final String APP = "apps/gpu-pipeline.yaml";
    static final int FRAME_BYTES = StreamGenerator.ROWS * 4;
    /** Ping setups: scheduler, worker threads (0: the scheduler takes no worker count), queue capacity, pairs. */
    static final List<Object[]> SCHEDULERS = List.of(new Object[] {"GreedyScheduler", 0, 1, 1},
            new Object[] {"GreedyScheduler", 0, 64, 1},
            new Object[] {"MultiThreadScheduler", 1, 64, 4}, new Object[] {"MultiThreadScheduler", 2, 64, 4},
            new Object[] {"MultiThreadScheduler", 4, 64, 4}, new Object[] {"EventBasedScheduler", 1, 64, 4},
            new Object[] {"EventBasedScheduler", 2, 64, 4}, new Object[] {"EventBasedScheduler", 4, 64, 4});
    /** The graph runtime's goals: Greedy at capacity 64 in msg/s and its p50 hop in µs; MultiThread / EventBased, 2 workers. */
    static final double GREEDY_GOAL_RATE = 2e6, GREEDY_GOAL_HOP_US = 0.5, WORKERS_GOAL_RATE = 1e6;
    /**
     * Measured ping runs per setup (the rate figure is their median), after {@link #PING_WARM_UP_RUNS} unmeasured
     * runs of the same size: a 100,000-message run lasts about 0.1 s, shorter than the JIT takes to compile the
     * scheduler loop, and a single run after one short warm-up graph measured the interpreter and C1 code (Greedy at
     * capacity 64 on a 2-vCPU x86-64 machine: 0.6 M msg/s that way, 1.5–1.9 M msg/s from the 4th run of 1 M messages).
     */
    static final int PING_RUNS = 5, PING_WARM_UP_RUNS = 3;

    @Override
    public String name() {
        return "graph";
    }

    @Override
    public String title() {
        return "Graph runtime (ping, GPU pipeline)";
    }

    @Override
    public int steps(Context ctx) {
        return SCHEDULERS.size() + 3 + PythonPing.steps() + 1;
    }

    @Override
    public void run(Context ctx, Recorder out) {
        int messages = ctx.quick() ? 2_000 : 100_000;
        int runs = ctx.quick() ? 1 : PING_RUNS;
        for (Object[] s : SCHEDULERS) {
            ping(ctx, out, (String) s[0], (Integer) s[1], (Integer) s[2], (Integer) s[3], messages, runs);
        }
        pingGoals(out);
        PythonPing.run(ctx, out);
        pipeline(ctx, out);
        PythonCudaPipeline.run(ctx, out);
    }

    /** Publishes messages numbered 0, 1, 2, ... one per tick. */
    static final class Tx extends Codelet {
        Transmitter out;
        private long next;

        @Override
        protected void tick() {
            out.publish(Message.create().add("seq", next++));
        }
    }

    /** Receives one message per tick, checks its number, records how long it travelled. */
    static final class Rx extends Codelet {
        Receiver in;
        long[] latencies;
        int n;
        String failure;

        @Override
        protected void tick() {
            Message m = in.receive();
            long now = graph().clock().timestamp();
            Long seq = m == null ? null : m.get(Long.class, "seq");
            if (failure == null && (seq == null || seq != n)) {
                failure = "message " + n + " arrived as " + (m == null ? "nothing" : "number " + seq);
            }
            if (m != null) {
                latencies[n] = now - m.timestamp().pubtime();
            }
            n++;
        }
    }

    private static String label(String scheduler, int workers, int capacity, int pairs) {
        return scheduler.replace("Scheduler", "") + (workers > 0 ? " (" + workers + " workers)" : "")
                + (pairs > 1 ? ", " + pairs + " pairs" : "") + ", capacity " + capacity;
    }

    private static void ping(Context ctx, Recorder out, String scheduler, int workers, int capacity, int pairs,
                             int messages, int runs) {
        String label = label(scheduler, workers, capacity, pairs);
        int warmUps = runs > 1 ? PING_WARM_UP_RUNS : 1;
        for (int w = 0; w < warmUps; w++) {
            runPing(scheduler, workers, capacity, runs > 1 ? messages : Math.max(500, messages / 10), newRx(pairs));
        }
        double[] rates = new double[runs];
        double[] us = new double[runs * messages * pairs];
        String failure = null;
        for (int run = 0; run < runs && failure == null; run++) {
            Rx[] rx = newRx(pairs);
            RunResult r = runPing(scheduler, workers, capacity, messages, rx);
            for (int p = 0; p < pairs && failure == null; p++) {
                failure = rx[p].failure != null ? "pair " + p + ": " + rx[p].failure
                        : rx[p].n != messages ? "pair " + p + ": received " + rx[p].n + " of " + messages + " (" + r + ")"
                        : null;
            }
            rates[run] = (long) messages * pairs / (r.durationNs() / 1e9);
            for (int p = 0; p < pairs; p++) {
                for (int i = 0; i < messages; i++) us[(run * pairs + p) * messages + i] = rx[p].latencies[i] / 1e3;
            }
        }
        String what = "ping " + label + ": " + messages + " messages per pair" + (runs > 1 ? " in each of " + runs + " runs" : "")
                + ", each once, in order";
        if (out.check(what, failure)) {
            out.figure("ping rate", label, 0, "msg/s", Summary.of(rates));
            out.figure("ping hop latency", label, 0, "µs", Summary.of(us));
        }
        ctx.step("graph ping " + label);
    }

    /** The graph runtime's goals as ratios: measured / goal (rates: at least 1; the hop latency: at most 1). */
    private static void pingGoals(Recorder out) {
        String greedy = label("GreedyScheduler", 0, 64, 1);
        goal(out, "ping rate", greedy, GREEDY_GOAL_RATE, "msg/s", true, "goal: 2 M msg/s");
        goal(out, "ping hop latency", greedy, GREEDY_GOAL_HOP_US, "µs", false, "goal: p50 hop ≤ 0.5 µs");
        for (String s : List.of("MultiThreadScheduler", "EventBasedScheduler")) {
            goal(out, "ping rate", label(s, 2, 64, 4), WORKERS_GOAL_RATE, "msg/s", true, "goal: 1 M msg/s");
            for (int w : new int[] {2, 4}) {
                out.ratio("ping " + label(s, w, 64, 4) + " / " + (w / 2) + " worker" + (w / 2 > 1 ? "s" : ""),
                        out.find("ping rate", label(s, w, 64, 4), 0), out.find("ping rate", label(s, w / 2, 64, 4), 0),
                        1.0, true, "goal: never slower with more workers when there is work for them");
            }
        }
    }

    private static void goal(Recorder out, String metric, String impl, double goal, String unit, boolean atLeast,
                             String note) {
        Figure g = new Figure("graph", metric, "goal", 0, unit, Summary.of(new double[] {goal}));
        out.ratio(metric + " " + impl + " / goal", out.find(metric, impl, 0), Optional.of(g), 1.0, atLeast, note);
    }

    private static Rx[] newRx(int pairs) {
        Rx[] rx = new Rx[pairs];
        for (int p = 0; p < pairs; p++) rx[p] = new Rx();
        return rx;
    }

    /** {@code rx.length} independent tx → rx pairs with the Java API, as the graph module's PingBenchmark builds them. */
    private static RunResult runPing(String scheduler, int workers, int capacity, int messages, Rx[] rxs) {
        try (Graph g = Graph.create()) {
            Entity sched = g.addEntity("sched");
            Component clock = sched.add("RealtimeClock", "clock");
            Component s = sched.add(scheduler, "scheduler");
            g.setParameter(s, "clock", clock);
            if (workers > 0) {
                g.setParameter(s, "worker_thread_number", (long) workers);
            }
            if (scheduler.equals("MultiThreadScheduler")) {
                g.setParameter(s, "check_recession_period_ms", 0.1);
            }
            for (int p = 0; p < rxs.length; p++) {
                Entity tx = g.addEntity("tx" + p);
                Transmitter txq = (Transmitter) tx.add("DoubleBufferTransmitter", "out");
                g.setParameter(txq, "capacity", (long) capacity);
                g.setParameter(tx.add("DownstreamReceptiveSchedulingTerm", "room"), "transmitter", txq);
                g.setParameter(tx.add("CountSchedulingTerm", "count"), "count", (long) messages);
                tx.add(new Tx(), "ping").out = txq;

                Entity rx = g.addEntity("rx" + p);
                Receiver rxq = (Receiver) rx.add("DoubleBufferReceiver", "in");
                g.setParameter(rxq, "capacity", (long) capacity);
                g.setParameter(rx.add("MessageAvailableSchedulingTerm", "avail"), "receiver", rxq);
                g.setParameter(rx.add("CountSchedulingTerm", "count"), "count", (long) messages);
                rxs[p].in = rxq;
                rxs[p].latencies = new long[messages];
                rx.add(rxs[p], "pong");

                Component link = g.addEntity("link" + p).add("Connection", "tx_to_rx");
                g.setParameter(link, "source", txq);
                g.setParameter(link, "target", rxq);
            }
            return g.run();
        }
    }

    /** The app file, looked for in the working directory and its parents (the CLI runs from the repository root). */
    public static Path findApp() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve(APP);
            if (Files.isRegularFile(p)) return p;
        }
        return null;
    }

    /** Pipeline rows: lock-step (each frame read back and compared in its own tick) and 2 frames in flight. */
    static final int[] FRAMES_IN_FLIGHT = {0, 2};

    static String pipelineImpl(int inFlight) {
        return "gpu-pipeline.yaml, " + (inFlight == 0 ? "lock-step" : inFlight + " frames in flight");
    }

    private static void pipeline(Context ctx, Recorder out) {
        double limit = transferLimit(ctx, out);
        ctx.step("graph transfer-bound limit");
        Path app = findApp();
        if (app == null) {
            out.note("pipeline not run: " + APP + " was not found in the working directory or above it (run from the"
                    + " repository root)");
            ctx.step("");
            ctx.step("");
            return;
        }
        // Full mode measures the steady state: a 20,000-frame run is ~1 s on a GPU, about what C2 needs to compile the
        // frame path, so one short run after a short warm-up read 0.3-0.7 of the limit where 1,000,000 frames ran at
        // 1.04 (H100). Each row: one unmeasured run, then the median of RUNS measured ones.
        int frames = ctx.quick() ? 200 : 50_000, runs = ctx.quick() ? 1 : 3;
        PipelineLoop.run(app, ctx.quick() ? 20 : 50_000, 2, false); // pipelines, shader compile, JIT
        for (int inFlight : FRAMES_IN_FLIGHT) {
            String impl = pipelineImpl(inFlight);
            long heap0 = HostMemory.usedHeapAfterGc(), rss0 = HostMemory.residentBytes();
            if (!ctx.quick()) PipelineLoop.run(app, frames, inFlight, false);
            double[] fps = new double[runs];
            String failure = null;
            for (int i = 0; i < runs && failure == null; i++) {
                PipelineLoop.Result r = PipelineLoop.run(app, frames, inFlight, false);
                fps[i] = r.framesPerSecond();
                failure = r.verified() == frames ? null
                        : "VerifyEqual passed " + r.verified() + " of " + frames + " frames (" + r.stopReason() + ")";
            }
            long heap1 = HostMemory.usedHeapAfterGc(), rss1 = HostMemory.residentBytes();
            out.note(String.format("pipeline, %s, %d × %,d frames: heap after GC %.1f → %.1f MiB, resident %.1f → %.1f MiB",
                    impl, runs + (ctx.quick() ? 0 : 1), frames, heap0 / 1048576.0, heap1 / 1048576.0, rss0 / 1048576.0,
                    rss1 / 1048576.0));
            if (out.check("pipeline " + impl + ": " + runs + " × " + frames
                    + " frames, GPU result = CPU reference (VerifyEqual)", failure)) {
                out.figure("pipeline", impl, 0, "frames/s", Summary.of(fps));
            }
            out.ratio("pipeline " + impl + " / transfer-bound limit (" + FRAME_BYTES / 1024 + " KiB frames)",
                    out.find("pipeline", impl, 0), out.find("pipeline", "transfer-bound limit", 0), 0.9, true,
                    "frames/s; limit = 1 / (2 uploads + 1 read-back), recorded sequences");
            ctx.step("graph pipeline, " + (inFlight == 0 ? "lock-step" : inFlight + " in flight"));
        }
        if (limit > 0) {
            out.note(String.format("transfer-bound limit: one frame = 2 × %d B host→device + 1 × %d B device→host,"
                    + " %.0f frames/s from the medians of recorded OpSyncDevice/OpSyncLocal sequences", FRAME_BYTES,
                    FRAME_BYTES, limit));
        }
    }

    /**
     * Frames per second if a frame cost only its transfers: two uploads and one read-back of a frame-sized DEVICE
     * tensor, each a recorded sequence evaluated and awaited (suite 4's method), checked on random data first.
     */
    private static double transferLimit(Context ctx, Recorder out) {
        Manager mgr = ctx.manager();
        int iters = ctx.quick() ? 200 : 5_000;
        try (Arena arena = Arena.ofConfined();
                Tensor t = mgr.tensor(DataType.FLOAT32, new long[] {StreamGenerator.ROWS}, MemoryType.DEVICE);
                Sequence up = mgr.sequence();
                Sequence down = mgr.sequence()) {
            MemorySegment src = HostData.randomFloats(arena, StreamGenerator.ROWS, ctx.seed());
            up.record(new OpSyncDevice(t));
            down.record(new OpSyncLocal(t));
            MemorySegment.copy(src, 0, t.data(), 0, FRAME_BYTES);
            up.eval();
            t.data().fill((byte) 0);
            down.eval();
            if (!out.check("frame-sized round trip (" + FRAME_BYTES + " B)", HostData.checkEqual(src, t.data(), FRAME_BYTES))) {
                return 0;
            }
            Summary u = Summary.of(Timing.wall(up::eval, iters / 10, iters));
            Summary d = Summary.of(Timing.wall(down::eval, iters / 10, iters));
            double limit = 1e9 / (2 * u.p50() + d.p50());
            out.figure("pipeline", "transfer-bound limit", 0, "frames/s", Summary.of(new double[] {limit}));
            return limit;
        }
    }
}

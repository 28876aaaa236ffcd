package io.jkompute.bench;

import io.jkompute.bench.internal.GraphSuite;
import io.jkompute.bench.internal.HostMemory;
import io.jkompute.graph.Graph;
import io.jkompute.graph.JavaCodelet;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.std.VerifyEqual;
import java.nio.file.Path;

/**
 * The GPU pipeline app ({@code apps/gpu-pipeline.yaml}: StreamGenerator → Vulkan kernel and CPU reference →
 * VerifyEqual) for many frames in one run, every frame verified, to show that a long stream keeps heap and native
 * memory flat: prints frames per second and the heap after a GC and the resident set (VmRSS) at the start, at 10%
 * of the frames and at the end. The 10% sample is the baseline that matters; start → 10% includes warming up
 * (class loading, JIT, pipeline and kernel set-up). The committed heap is printed too: without a fixed heap size the
 * collector widens the young generation under this allocation rate and the resident set grows with it (lavapipe,
 * 100,000 frames: +113 MiB resident, +0.1 MiB heap used; with -Xms256m -Xmx256m -XX:+AlwaysPreTouch: −0.1 MiB), so
 * resident minus committed heap is the figure for native memory.
 *
 * <p>{@code java -cp ... io.jkompute.bench.PipelineLoop [frames (1,000,000)] [frames_in_flight (2)] [app path]}
 */
public final class PipelineLoop {
    /** Frames when none are given. */
    public static final long DEFAULT_FRAMES = 1_000_000;

    /**
     * What a run measured; the memory arrays hold start, 10% and end (empty when not sampled): heap used after a GC,
     * heap committed, resident set.
     */
    public record Result(long frames, long verified, int framesInFlight, long durationNs, String stopReason,
            long[] heapBytes, long[] committedHeapBytes, long[] rssBytes) {
        /** Frames per second over the run. */
        public double framesPerSecond() {
            return frames / (durationNs / 1e9);
        }
    }

    private PipelineLoop() {}

    /**
     * Loads the app for {@code frames} frames with {@code framesInFlight} read-backs in flight (the result pools sized
     * to match) and no time limit but an hour.
     */
    public static Graph load(Path app, long frames, int framesInFlight) {
        int blocks = Math.max(8, framesInFlight + 4);
        return Graph.loader().file(app)
                .param("source/count/count=" + frames)
                .param("verify/steps/codelet_params={expected_count: " + frames + "}")
                .param("verify/equal/codelet_params={receiver0: cpu_in, receiver1: gpu_in, frames_in_flight: "
                        + framesInFlight + "}")
                .param("kernel/result_pool/num_blocks=" + blocks)
                .param("cpu/result_pool/num_blocks=" + blocks)
                .param("sched/scheduler/max_duration_ms=3600000")
                .load();
    }

    /** Runs the app once; with {@code sampleMemory}, takes the three memory samples (each after a GC). */
    public static Result run(Path app, long frames, int framesInFlight, boolean sampleMemory) {
        long[] heap = sampleMemory ? new long[3] : new long[0];
        long[] rss = sampleMemory ? new long[3] : new long[0];
        long[] committed = sampleMemory ? new long[3] : new long[0];
        try (Graph g = load(app, frames, framesInFlight)) {
            VerifyEqual verify = (VerifyEqual) g.component("verify/equal", JavaCodelet.class).instance();
            Thread sampler = null;
            if (sampleMemory) {
                heap[0] = HostMemory.usedHeapAfterGc();
                committed[0] = HostMemory.committedHeap();
                rss[0] = HostMemory.residentBytes();
                // samples once a tenth of the frames are verified; the run goes on meanwhile (a GC pause or two)
                sampler = Thread.ofPlatform().daemon().name("pipeline-memory-sampler").start(() -> {
                    long tenth = Math.max(1, frames / 10);
                    while (verify.verified() < tenth && !Thread.currentThread().isInterrupted()) {
                        try {
                            Thread.sleep(2);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    heap[1] = HostMemory.usedHeapAfterGc();
                    committed[1] = HostMemory.committedHeap();
                    rss[1] = HostMemory.residentBytes();
                });
            }
            RunResult r;
            try {
                r = g.run();
            } finally {
                if (sampler != null) {
                    sampler.interrupt();
                }
            }
            if (sampler != null) {
                try {
                    sampler.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                heap[2] = HostMemory.usedHeapAfterGc();
                committed[2] = HostMemory.committedHeap();
                rss[2] = HostMemory.residentBytes();
            }
            return new Result(frames, verify.verified(), framesInFlight, r.durationNs(), r.reason() + " " + r.detail(),
                    heap, committed, rss);
        }
    }

    /**
     * Runs the pipeline ({@code [frames [frames_in_flight [app.yaml]]]}) and prints frames per second, the verified
     * count and memory samples.
     */
    public static void main(String[] args) {
        long frames = args.length > 0 ? Long.parseLong(args[0].replace("_", "").replace(",", "")) : DEFAULT_FRAMES;
        int inFlight = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        Path app = args.length > 2 ? Path.of(args[2]) : GraphSuite.findApp();
        if (app == null) {
            System.err.println("apps/gpu-pipeline.yaml not found in the working directory or above it: run from the"
                    + " repository root or give its path as the third argument");
            System.exit(2);
        }
        Result r = run(app, frames, inFlight, true);
        System.out.printf("app: %s, frames_in_flight %d%n", app, inFlight);
        System.out.printf("%,d frames in %.2f s: %,.0f frames/s; verified %,d (%s)%n", r.frames(), r.durationNs() / 1e9,
                r.framesPerSecond(), r.verified(), r.verified() == r.frames() ? "every frame = CPU reference" : "MISSING");
        System.out.printf("heap after GC (MiB): start %.1f, at 10%% %.1f, end %.1f%n", mib(r.heapBytes()[0]),
                mib(r.heapBytes()[1]), mib(r.heapBytes()[2]));
        System.out.printf("heap committed (MiB): start %.1f, at 10%% %.1f, end %.1f%n", mib(r.committedHeapBytes()[0]),
                mib(r.committedHeapBytes()[1]), mib(r.committedHeapBytes()[2]));
        System.out.printf("resident memory (MiB): start %.1f, at 10%% %.1f, end %.1f%n", mib(r.rssBytes()[0]),
                mib(r.rssBytes()[1]), mib(r.rssBytes()[2]));
        long[] nat = new long[3];
        for (int i = 0; i < 3; i++) {
            nat[i] = r.rssBytes()[i] - r.committedHeapBytes()[i];
        }
        System.out.printf("resident minus committed heap (MiB): start %.1f, at 10%% %.1f, end %.1f%n", mib(nat[0]),
                mib(nat[1]), mib(nat[2]));
        System.out.printf("growth from 10%% to the end: heap used %+.1f MiB, resident %+.1f MiB, resident minus"
                + " committed heap %+.1f MiB%n", mib(r.heapBytes()[2] - r.heapBytes()[1]),
                mib(r.rssBytes()[2] - r.rssBytes()[1]), mib(nat[2] - nat[1]));
        if (r.verified() != r.frames()) {
            System.out.println("run ended: " + r.stopReason());
            System.exit(1);
        }
    }

    private static double mib(long bytes) {
        return bytes / 1048576.0;
    }
}

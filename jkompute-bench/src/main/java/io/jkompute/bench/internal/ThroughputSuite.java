package io.jkompute.bench.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jkompute.Algorithm;
import io.jkompute.Constants;
import io.jkompute.DataType;
import io.jkompute.Manager;
import io.jkompute.MemoryType;
import io.jkompute.OpAlgoDispatch;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Shader;
import io.jkompute.Tensor;
import io.jkompute.Workgroup;
import io.jkompute.bench.DispatchLoop;
import io.jkompute.bench.Summary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Suite 3, dispatch throughput in Kompute's own benchmark shape: S sequences × D recorded dispatches × E evaluations
 * (10 × 10 × 10,000 of 102,400 elements in full mode), run by {@link DispatchLoop}. The add shader is first checked on
 * random data; the loop's own check (every output element = S·D·E) runs after.
 */
public final class ThroughputSuite implements Suite {
    @Override
    public String name() {
        return "throughput";
    }

    @Override
    public String title() {
        return "Dispatch throughput (Kompute's benchmark shape)";
    }

    @Override
    public int steps(Context ctx) {
        return 5;
    }

    @Override
    public void run(Context ctx, Recorder out) {
        int sequences = 10, dispatches = 10;
        int evaluations = ctx.quick() ? 5 : 10_000;
        int n = ctx.quick() ? 10_240 : 102_400;
        Manager mgr = ctx.manager();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = HostData.randomInts(arena, n, ctx.seed());
            MemorySegment b = HostData.randomInts(arena, n, ctx.seed());
            MemorySegment o = HostData.randomInts(arena, n, ctx.seed());
            try (Tensor ta = mgr.tensor(DataType.UINT32, a, new long[] {n}, MemoryType.DEVICE);
                    Tensor tb = mgr.tensor(DataType.UINT32, b, new long[] {n}, MemoryType.DEVICE);
                    Tensor to = mgr.tensor(DataType.UINT32, o, new long[] {n}, MemoryType.DEVICE);
                    Algorithm add = mgr.algorithm(List.of(ta, tb, to), Shader.compile(DispatchLoop.SHADER),
                            Workgroup.covering(n, 256), Constants.NONE, Constants.uints(n))) {
                mgr.eval(new OpSyncDevice(ta, tb, to), new OpAlgoDispatch(add), new OpSyncLocal(to));
                String failure = null;
                for (int i = 0; i < n && failure == null; i++) {
                    int want = o.getAtIndex(JAVA_INT, i) + a.getAtIndex(JAVA_INT, i) + b.getAtIndex(JAVA_INT, i);
                    int got = to.data().getAtIndex(JAVA_INT, i);
                    if (got != want) {
                        failure = "element " + i + " is " + Integer.toUnsignedString(got) + ", expected "
                                + Integer.toUnsignedString(want);
                    }
                }
                if (!out.check("uint add, " + n + " random elements", failure)) {
                    ctx.step("");
                    return;
                }
            }
        }
        ctx.step("throughput check");
        DispatchLoop.Result r = DispatchLoop.run(mgr, sequences, dispatches, evaluations, n,
                ctx.within("throughput check", evaluations, "evaluations"));
        out.check(sequences + " × " + dispatches + " × " + evaluations + " dispatches, every output = " + r.dispatches(),
                r.correct() ? null : "the output does not hold " + r.dispatches() + " everywhere");
        if (r.correct()) {
            out.figure(PER_DISPATCH, JK, 0, "µs", Summary.of(new double[] {r.microsPerDispatch()}));
        }
        long[] heap = r.heapSamples(), rss = r.rssSamples();
        out.note(String.format("%d sequences × %d dispatches × %d evaluations of %,d elements; heap after GC %.1f → %.1f MiB,"
                + " resident %.1f → %.1f MiB", sequences, dispatches, evaluations, n, heap[0] / 1048576.0,
                heap[heap.length - 1] / 1048576.0, rss[0] / 1048576.0, rss[rss.length - 1] / 1048576.0));
        ctx.step("throughput jkompute");
        gpuTimeJkompute(ctx, out, sequences * dispatches, n);
        rawVulkan(ctx, out, sequences, dispatches, evaluations, n);
        ctx.step("throughput raw Vulkan");
        out.ratio("per dispatch jkompute / raw Vulkan, same shape", out.find(PER_DISPATCH, JK, 0), out.find(PER_DISPATCH, VK, 0),
                Double.NaN, false, "µs per dispatch, wall; lower is better");
        Peers.run(ctx, out, "throughput", 600);
        ctx.step("throughput peers");
        out.ratio("per dispatch jkompute / CuPy CUDA graph of 100", out.find(PER_DISPATCH, JK, 0),
                out.find(PER_DISPATCH + " (graph of 100)", "CuPy CUDA graph", 0), Double.NaN, false, "the same 100 dependent uint adds per graph");
        out.ratio("GPU time per dispatch jkompute / raw Vulkan", out.find(GPU_TIME, JK, 0), out.find(GPU_TIME, VK, 0),
                Double.NaN, false, "the floor: the GPU's own time per barrier + dispatch");
    }

    static final String PER_DISPATCH = "per dispatch, wall", GPU_TIME = "per dispatch, GPU time";
    static final String JK = "jkompute", VK = "raw Vulkan";

    private static Algorithm addAlgorithm(Manager mgr, Tensor a, Tensor b, Tensor o, int n) {
        return mgr.algorithm(List.of(a, b, o), Shader.compile(DispatchLoop.SHADER), Workgroup.covering(n, 256), Constants.NONE,
                Constants.uints(n));
    }

    /** The GPU's own time per dispatch: {@code count} recorded dispatches timed with timestamps, no host in between. */
    private static void gpuTimeJkompute(Context ctx, Recorder out, int count, int n) {
        Manager mgr = ctx.manager();
        try (Tensor a = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.DEVICE);
                Tensor b = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.DEVICE);
                Tensor o = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.DEVICE);
                Algorithm add = addAlgorithm(mgr, a, b, o, n)) {
            double[] ns = Timing.jkompute(mgr, List.of(new OpAlgoDispatch(add)), count, ctx.quick() ? 2 : 5);
            out.figure(GPU_TIME, JK, 0, "µs", micros(ns));
        }
        ctx.step("throughput GPU time");
    }

    private static Summary micros(double[] ns) {
        for (int i = 0; i < ns.length; i++) ns[i] /= 1e3;
        return Summary.of(ns);
    }

    /**
     * The same shape in raw Vulkan: one command buffer and fence per "sequence", each holding {@code dispatches}
     * barrier + dispatch pairs; per evaluation every command buffer is submitted, then every fence is spun on.
     */
    private static void rawVulkan(Context ctx, Recorder out, int sequences, int dispatches, int evaluations, int n) {
        RawVulkan vk = ctx.vulkan();
        try {
            RawAdd raw = new RawAdd(vk, n);
            RawVulkan.Pipeline add = raw.pipeline;
            java.nio.ByteBuffer push = raw.push;
            int groups = raw.groups;
            List<RawVulkan.Recording> recs = new java.util.ArrayList<>();
            for (int s = 0; s < sequences; s++) {
                RawVulkan.Recording rec = vk.recording();
                rec.record(c -> {
                    for (int d = 0; d < dispatches; d++) add.dispatch(c, push, groups);
                });
                recs.add(rec);
            }
            Runnable evaluation = () -> {
                for (RawVulkan.Recording rec : recs) rec.submit();
                for (RawVulkan.Recording rec : recs) rec.waitSpin();
            };
            evaluation.run();
            long t0 = System.nanoTime();
            for (int e = 0; e < evaluations; e++) evaluation.run();
            double micros = (System.nanoTime() - t0) / 1e3 / ((double) sequences * dispatches * evaluations);
            int reps = sequences * dispatches;
            double[] gpu = Timing.vulkan(vk, c -> add.dispatch(c, push, groups), reps, ctx.quick() ? 2 : 5);
            long expected = (long) sequences * dispatches * (evaluations + 1) + (long) reps * (1 + (ctx.quick() ? 2 : 5));
            MemorySegment output = raw.readOutput();
            String failure = null;
            for (int i = 0; i < n && failure == null; i++) {
                long got = Integer.toUnsignedLong(output.getAtIndex(JAVA_INT, i));
                if (got != expected) failure = "element " + i + " is " + got + ", expected " + expected;
            }
            if (out.check("raw Vulkan, same shape, every output = " + expected, failure)) {
                out.figure(PER_DISPATCH, VK, 0, "µs", Summary.of(new double[] {micros}));
                out.figure(GPU_TIME, VK, 0, "µs", micros(gpu));
            }
        } finally {
            vk.freeAll();
        }
    }
}

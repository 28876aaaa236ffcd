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
import io.jkompute.Sequence;
import io.jkompute.Shader;
import io.jkompute.Tensor;
import io.jkompute.Workgroup;
import io.jkompute.bench.DispatchLoop;
import io.jkompute.bench.Summary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Dependent chains: 10, 100 and 1,000 dispatches of {@code o += a + b} (local size 256, 1 Mi uints; a = 1, b = 0), each
 * ordered after the previous by a barrier, submitted as one recorded sequence and waited for. Per node, wall time of the
 * whole chain / its length: jkompute, raw Vulkan (one command buffer, fence spin), raw CUDA (the same kernel in PTX on a
 * non-blocking stream, launched one by one and as a captured CUDA graph), CuPy and PyTorch with and without a CUDA
 * graph (peers). The GPU's own time per node (timestamps) shows the floor the driver sets. Every chain's output must
 * equal the number of nodes run.
 */
public final class ChainSuite implements Suite {
    static final String GPU_TIME = "per node, GPU time";
    static final int[] LENGTHS = {10, 100, 1000};

    /** One metric per chain length, so the report lists them by name (the size column holds bytes). */
    static String metric(int length) {
        return "per node, wall, chain of " + length;
    }

    @Override
    public String name() {
        return "chain";
    }

    @Override
    public String title() {
        return "Dependent chains (10 / 100 / 1,000 dispatches)";
    }

    @Override
    public int steps(Context ctx) {
        return 3 * LENGTHS.length + 3;
    }

    private static int n(Context ctx) {
        return ctx.quick() ? 10_240 : 1 << 20;
    }

    @Override
    public void run(Context ctx, Recorder out) {
        int n = n(ctx), reps = ctx.quick() ? 5 : 200, warm = ctx.quick() ? 1 : 20;
        for (int length : LENGTHS) {
            jkompute(ctx, out, n, length, reps, warm);
            rawVulkan(ctx, out, n, length, reps, warm);
            rawCuda(ctx, out, n, length, reps, warm);
        }
        gpuTime(ctx, out, n);
        barrierProbe(ctx, out, n, LENGTHS[LENGTHS.length - 1], reps, warm);
        Peers.run(ctx, out, "chain", 600);
        ctx.step("chain peers");
        for (int length : LENGTHS) {
            out.ratio("per node, chain of " + length + ": jkompute / CuPy CUDA graph", out.find(metric(length), "jkompute", 0),
                    out.find(metric(length), "CuPy CUDA graph", 0), 1.0, false, "µs per dependent dispatch; lower is better");
            out.ratio("per node, chain of " + length + ": jkompute / raw Vulkan", out.find(metric(length), "jkompute", 0),
                    out.find(metric(length), "raw Vulkan", 0), Double.NaN, false, "the library's overhead per node");
            out.ratio("per node, chain of " + length + ": jkompute / raw CUDA graph", out.find(metric(length), "jkompute", 0),
                    out.find(metric(length), RAW_CUDA_GRAPH, 0), Double.NaN, false, "the same kernel, no Python in the way");
            out.ratio("per node, chain of " + length + ": raw Vulkan / raw CUDA graph", out.find(metric(length), "raw Vulkan", 0),
                    out.find(metric(length), RAW_CUDA_GRAPH, 0), Double.NaN, false, "the drivers' floors, no library involved");
        }
        if (ctx.cuda() == null) {
            out.note("raw CUDA rows skipped: " + ctx.cudaMissing());
        }
    }

    static final String RAW_CUDA_GRAPH = "raw CUDA graph";

    /**
     * The same chain in CUDA: {@code length} launches of {@code uadd} on a non-blocking stream, then a stream
     * synchronize (as CuPy's plain launches, without Python); and the same launches captured once into a CUDA graph,
     * replayed and synchronized (as CuPy's graph row).
     */
    private static void rawCuda(Context ctx, Recorder out, int n, int length, int reps, int warm) {
        RawCuda cu = ctx.cuda();
        if (cu == null) {
            ctx.step("");
            return;
        }
        long bytes = 4L * n;
        long a = cu.malloc(bytes), b = cu.malloc(bytes), o = cu.malloc(bytes);
        MemorySegment stream = cu.stream();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(bytes);
            cu.fill32(a, 1, n);
            cu.fill32(b, 0, n);
            cu.fill32(o, 0, n);
            // cuMemsetD32 runs on the legacy stream and returns before it is done; the launches below go to a
            // non-blocking stream, which does not wait for the legacy one
            cu.synchronize();
            RawCuda.Launch add = cu.kernel("uadd", (n + 255) / 256, 256, a, b, o, n);
            Runnable launches = () -> {
                for (int d = 0; d < length; d++) add.launch(stream);
            };
            double[] loop = Timing.wall(() -> {
                launches.run();
                cu.synchronize(stream);
            }, warm, reps);
            MemorySegment graph = cu.captureGraph(stream, launches);
            double[] replay;
            try {
                replay = Timing.wall(() -> {
                    cu.launchGraph(graph, stream);
                    cu.synchronize(stream);
                }, warm, reps);
            } finally {
                cu.destroyGraph(graph);
            }
            cu.copyDtoH(host, o, bytes);
            long want = 2L * (warm + reps) * length; // the loop's runs and the graph's; capturing runs nothing
            if (out.check("raw CUDA chain of " + length + ", every output = " + want, uniform(host, n, want, "raw CUDA"))) {
                out.figure(metric(length), "raw CUDA launches", 0, "µs", perNode(loop, length));
                out.figure(metric(length), RAW_CUDA_GRAPH, 0, "µs", perNode(replay, length));
            }
        } finally {
            cu.destroyStream(stream);
            cu.free(a);
            cu.free(b);
            cu.free(o);
        }
        ctx.step("chain raw CUDA " + length);
    }

    private static Algorithm add(Manager mgr, Tensor a, Tensor b, Tensor o, int n) {
        return mgr.algorithm(List.of(a, b, o), Shader.compile(DispatchLoop.SHADER), Workgroup.covering(n, 256), Constants.NONE,
                Constants.uints(n));
    }

    private static String uniform(MemorySegment got, int n, long want, String who) {
        for (int i = 0; i < n; i++) {
            long g = Integer.toUnsignedLong(got.getAtIndex(JAVA_INT, i));
            if (g != want) {
                return who + ": element " + i + " is " + g + ", expected " + want;
            }
        }
        return null;
    }

    private static void jkompute(Context ctx, Recorder out, int n, int length, int reps, int warm) {
        Manager mgr = ctx.manager();
        int[] ones = new int[n];
        java.util.Arrays.fill(ones, 1);
        try (Tensor a = mgr.tensor(DataType.UINT32, MemorySegment.ofArray(ones), new long[] {n}, MemoryType.DEVICE);
                Tensor b = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.DEVICE);
                Tensor o = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.DEVICE);
                Algorithm add = add(mgr, a, b, o, n);
                Sequence seq = mgr.sequence()) {
            mgr.eval(new OpSyncDevice(a, b, o));
            for (int i = 0; i < length; i++) seq.record(new OpAlgoDispatch(add));
            double[] ns = Timing.wall(seq::eval, warm, reps);
            mgr.eval(new OpSyncLocal(o));
            long want = (long) (warm + reps) * length;
            if (out.check("jkompute chain of " + length + ", every output = " + want, uniform(o.data(), n, want, "jkompute"))) {
                out.figure(metric(length), "jkompute", 0, "µs", perNode(ns, length));
            }
        }
        ctx.step("chain jkompute " + length);
    }

    private static void rawVulkan(Context ctx, Recorder out, int n, int length, int reps, int warm) {
        RawVulkan vk = ctx.vulkan();
        try {
            RawAdd add = new RawAdd(vk, n);
            vk.record(c -> {
                for (int d = 0; d < length; d++) add.pipeline.dispatch(c, add.push, add.groups);
            });
            double[] ns = Timing.wall(() -> {
                vk.submit();
                vk.waitSpin();
            }, warm, reps);
            long want = (long) (warm + reps) * length;
            if (out.check("raw Vulkan chain of " + length + ", every output = " + want,
                    uniform(add.readOutput(), n, want, "raw Vulkan"))) {
                out.figure(metric(length), "raw Vulkan", 0, "µs", perNode(ns, length));
            }
        } finally {
            vk.freeAll();
        }
        ctx.step("chain raw Vulkan " + length);
    }

    /**
     * Where the time per node goes, in raw Vulkan on a chain of {@code length}: the suite's barrier (compute + transfer
     * writes → compute) with binds per node; a compute → compute barrier with binds per node; the same binding once;
     * no barrier at all (binds once), which no longer orders the nodes, so its output is checked and reported, not
     * trusted: it is the floor that removing the barrier could reach.
     */
    private static void barrierProbe(Context ctx, Recorder out, int n, int length, int reps, int warm) {
        RawVulkan vk = ctx.vulkan();
        try {
            RawAdd add = new RawAdd(vk, n);
            String[] names = {"compute→compute barrier, binds per node", "compute→compute barrier, binds once",
                "no barrier, binds once (unordered)"};
            StringBuilder note = new StringBuilder("raw Vulkan probe, chain of " + length + ", µs per node p50:");
            // the unordered variant is a deliberate write-after-write hazard: full mode only, never under validation (CI)
            int variants = ctx.quick() ? 2 : names.length;
            for (int v = 0; v < variants; v++) {
                boolean barrier = v < 2, bindEach = v == 0;
                add.resetOutput();
                vk.record(c -> {
                    for (int d = 0; d < length; d++) {
                        add.pipeline.dispatchProbe(c, add.push, add.groups, barrier, bindEach || d == 0);
                    }
                });
                double[] ns = Timing.wall(() -> {
                    vk.submit();
                    vk.waitSpin();
                }, warm, reps);
                long want = (long) (warm + reps) * length;
                String failure = uniform(add.readOutput(), n, want, "raw Vulkan " + names[v]);
                if (barrier) {
                    if (out.check("raw Vulkan chain of " + length + ", " + names[v] + ", every output = " + want, failure)) {
                        out.figure(metric(length), "raw Vulkan, " + names[v], 0, "µs", perNode(ns, length));
                    }
                } else {
                    note.append(String.format(" %s %.2f (output %s)", names[v], perNode(ns, length).p50(),
                            failure == null ? "happened to be right" : "wrong, as expected without ordering"));
                }
            }
            if (variants == names.length) {
                out.note(note.toString());
            }
        } finally {
            vk.freeAll();
        }
        ctx.step("chain barrier probe");
    }

    /** The GPU's own time per node (timestamps around each barrier + dispatch in one command buffer). */
    private static void gpuTime(Context ctx, Recorder out, int n) {
        Manager mgr = ctx.manager();
        try (Tensor a = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.DEVICE);
                Tensor b = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.DEVICE);
                Tensor o = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.DEVICE);
                Algorithm add = add(mgr, a, b, o, n)) {
            double[] ns = Timing.jkompute(mgr, List.of(new OpAlgoDispatch(add)), 100, ctx.quick() ? 2 : 5);
            out.figure(GPU_TIME, "jkompute", 0, "µs", perNode(ns, 1));
        }
        ctx.step("chain GPU time");
    }

    private static Summary perNode(double[] ns, int length) {
        for (int i = 0; i < ns.length; i++) ns[i] /= 1e3 * length;
        return Summary.of(ns);
    }
}

package io.jkompute.bench.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jkompute.Algorithm;
import io.jkompute.DataType;
import io.jkompute.Manager;
import io.jkompute.MemoryType;
import io.jkompute.OpAlgoDispatch;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Sequence;
import io.jkompute.Tensor;
import io.jkompute.WaitStrategy;
import io.jkompute.Workgroup;
import io.jkompute.bench.Figure;
import io.jkompute.bench.Summary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Suite 2, dispatch latency: wall time of one tiny dispatch (one workgroup of 64) in a recorded, reused sequence —
 * {@code eval()} under each {@link WaitStrategy} — against raw Vulkan submit + fence (spinning and blocking) and raw
 * CUDA launch + {@code cuCtxSynchronize}. Every evaluation adds 1 to 64 random counters, so the counters after the run
 * prove every one of them ran.
 */
public final class LatencySuite implements Suite {
    static final int N = 64;
    static final String METRIC = "round trip";
    /** A volatile read of the completion word, so the polling loop sees each new value. */
    private static final java.lang.invoke.VarHandle WORD = JAVA_INT.varHandle();

    @Override
    public String name() {
        return "latency";
    }

    @Override
    public String title() {
        return "Dispatch latency (tiny kernel, submit + wait)";
    }

    @Override
    public int steps(Context ctx) {
        return WaitStrategy.values().length + 3 + 2 + 1;
    }

    private static int iterations(Context ctx) {
        return ctx.quick() ? 200 : 20_000;
    }

    private static int warmup(Context ctx) {
        return ctx.quick() ? 20 : 2_000;
    }

    @Override
    public void run(Context ctx, Recorder out) {
        int iters = iterations(ctx), warm = warmup(ctx);
        try (Arena arena = Arena.ofConfined()) {
            jkompute(ctx, out, arena, iters, warm);
            rawVulkan(ctx, out, arena, iters, warm);
            rawCuda(ctx, out, arena, iters, warm);
            otherFamily(ctx, out, arena, iters, warm);
        }
        Peers.run(ctx, out, "latency", 600);
        ctx.step("latency peers");
        Optional<Figure> best = out.figures().stream()
                .filter(f -> f.impl().startsWith("jkompute")).min(Comparator.comparingDouble(Figure::value));
        best.ifPresent(b -> out.note("fastest jkompute configuration here: " + b.impl().replace("jkompute ", "")
                + String.format(" (p50 %.1f µs)", b.value())));
        out.ratio("p50 best jkompute / raw CUDA launch+sync", best, out.find(METRIC, "raw CUDA launch+sync", 0), 1.2, false,
                "µs per round trip; lower is better");
        out.ratio("p50 jkompute HYBRID (default) / raw CUDA launch+sync", out.find(METRIC, "jkompute HYBRID", 0),
                out.find(METRIC, "raw CUDA launch+sync", 0), 1.2, false, "the default wait strategy");
        out.ratio("p50 jkompute HYBRID (default) / CuPy RawKernel + synchronize", out.find(METRIC, "jkompute HYBRID", 0),
                out.find(METRIC, "CuPy RawKernel + synchronize", 0), 1.0, false, "the same tiny kernel launched from Python");
        out.ratio("p50 jkompute HYBRID (default) / PyTorch add_ + synchronize", out.find(METRIC, "jkompute HYBRID", 0),
                out.find(METRIC, "PyTorch add_ + synchronize", 0), Double.NaN, false, "64-element in-place add");
        out.ratio("p50 jkompute HYBRID / raw Vulkan fence spin", out.find(METRIC, "jkompute HYBRID", 0),
                out.find(METRIC, "raw Vulkan fence spin", 0), Double.NaN, false,
                "the library's overhead over submit + vkGetFenceStatus polling, same queue");
        out.ratio("p50 raw Vulkan fence spin / raw CUDA launch+sync", out.find(METRIC, "raw Vulkan fence spin", 0),
                out.find(METRIC, "raw CUDA launch+sync", 0), Double.NaN, false, "the driver's floor, no library involved");
        if (ctx.cuda() == null) {
            out.note("raw CUDA rows skipped: " + ctx.cudaMissing());
        }
    }

    private static Summary micros(double[] nanos) {
        for (int i = 0; i < nanos.length; i++) nanos[i] /= 1e3;
        return Summary.of(nanos);
    }

    private static String counterCheck(MemorySegment init, MemorySegment got, long added) {
        for (int i = 0; i < N; i++) {
            int want = (int) (init.getAtIndex(JAVA_INT, i) + added);
            if (got.getAtIndex(JAVA_INT, i) != want) {
                return "counter " + i + " is " + Integer.toUnsignedString(got.getAtIndex(JAVA_INT, i)) + ", expected "
                        + Integer.toUnsignedString(want) + " after " + added + " dispatches";
            }
        }
        return null;
    }

    private static void jkompute(Context ctx, Recorder out, Arena arena, int iters, int warm) {
        jkompute(ctx, out, ctx.manager(), "", List.of(WaitStrategy.values()), arena, iters, warm);
    }

    /** Times {@code eval()} of a recorded tiny dispatch on {@code mgr}'s queue 0 under each strategy. */
    private static void jkompute(Context ctx, Recorder out, Manager mgr, String suffix, List<WaitStrategy> strategies,
            Arena arena, int iters, int warm) {
        MemorySegment init = HostData.randomInts(arena, N, ctx.seed());
        try (Tensor t = mgr.tensor(DataType.UINT32, init, new long[] {N}, MemoryType.DEVICE);
                Algorithm tiny = mgr.algorithm(List.of(t), Shaders.spirv(Shaders.TINY), Workgroup.of(1));
                Sequence seq = mgr.sequence()) {
            mgr.eval(new OpSyncDevice(t));
            seq.record(new OpAlgoDispatch(tiny));
            seq.eval();
            mgr.eval(new OpSyncLocal(t));
            if (!out.check("tiny dispatch jkompute" + suffix, counterCheck(init, t.data(), 1))) {
                return;
            }
            long total = 1;
            for (WaitStrategy w : strategies) {
                seq.setWaitStrategy(w);
                double[] ns = Timing.wall(seq::eval, warm, iters);
                total += warm + iters;
                out.figure(METRIC, "jkompute " + w + suffix, 0, "µs", micros(ns));
                ctx.step("latency jkompute " + w + suffix);
            }
            mgr.eval(new OpSyncLocal(t));
            out.check("tiny dispatch jkompute" + suffix + ", counters after " + total + " evaluations",
                    counterCheck(init, t.data(), total));
        }
    }

    private static void rawVulkan(Context ctx, Recorder out, Arena arena, int iters, int warm) {
        rawVulkan(ctx, out, ctx.vulkan(), "", true, arena, iters, warm);
    }

    /** Times submit + fence wait of a recorded tiny dispatch: spinning, and blocking when {@code block}. */
    private static void rawVulkan(Context ctx, Recorder out, RawVulkan vk, String suffix, boolean block, Arena arena,
            int iters, int warm) {
        MemorySegment init = HostData.randomInts(arena, N, ctx.seed());
        long bytes = N * 4L;
        try {
            RawVulkan.Buffer b = vk.buffer(bytes, false), staging = vk.buffer(bytes, true);
            BandwidthSuite.upload(vk, staging, init, b, bytes);
            RawVulkan.Pipeline tiny = vk.pipeline(Shaders.spirv(Shaders.TINY), 0, b);
            vk.record(c -> {
                tiny.dispatch(c, null, 1);
                vk.copy(c, b, staging, bytes);
                vk.hostBarrier(c);
            });
            vk.submitAndWait();
            if (!out.check("tiny dispatch raw Vulkan" + suffix, counterCheck(init, staging.mapped(), 1))) {
                return;
            }
            vk.record(c -> tiny.dispatch(c, null, 1));
            double[] spin = Timing.wall(() -> {
                vk.submit();
                vk.waitSpin();
            }, warm, iters);
            out.figure(METRIC, "raw Vulkan fence spin" + suffix, 0, "µs", micros(spin));
            ctx.step("latency raw Vulkan spin" + suffix);
            long total = 1 + warm + iters;
            if (block) {
                double[] blocked = Timing.wall(() -> {
                    vk.submit();
                    vk.waitBlock();
                }, warm, iters);
                out.figure(METRIC, "raw Vulkan fence block" + suffix, 0, "µs", micros(blocked));
                ctx.step("latency raw Vulkan block" + suffix);
                total += warm + iters;
                total += completionWord(out, vk, tiny, iters, warm);
            }
            vk.record(c -> {
                vk.copy(c, b, staging, bytes);
                vk.hostBarrier(c);
            });
            vk.submitAndWait();
            out.check("tiny dispatch raw Vulkan" + suffix + ", counters after " + total + " submits",
                    counterCheck(init, staging.mapped(), total));
        } finally {
            vk.freeAll();
        }
    }

    /**
     * Probe below the fence: the command buffer ends with a barrier and a 4-byte {@code vkCmdFillBuffer} of 1 into
     * host-visible coherent memory that the host cleared before submitting and then polls. Records how long until the
     * word reads 1, and until the fence (which a real implementation must still see before reusing the command buffer)
     * reads signalled, and how long the vkQueueSubmit call itself took. Returns the dispatches it ran.
     */
    private static long completionWord(Recorder out, RawVulkan vk, RawVulkan.Pipeline tiny, int iters, int warm) {
        RawVulkan.Buffer word = vk.buffer(4, true);
        MemorySegment w = word.mapped();
        vk.record(c -> {
            tiny.dispatch(c, null, 1);
            try (org.lwjgl.system.MemoryStack s = org.lwjgl.system.MemoryStack.stackPush()) {
                org.lwjgl.vulkan.VkMemoryBarrier.Buffer mb = org.lwjgl.vulkan.VkMemoryBarrier.calloc(1, s).sType$Default()
                        .srcAccessMask(org.lwjgl.vulkan.VK10.VK_ACCESS_SHADER_WRITE_BIT)
                        .dstAccessMask(org.lwjgl.vulkan.VK10.VK_ACCESS_TRANSFER_WRITE_BIT);
                org.lwjgl.vulkan.VK10.vkCmdPipelineBarrier(c, org.lwjgl.vulkan.VK10.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                        org.lwjgl.vulkan.VK10.VK_PIPELINE_STAGE_TRANSFER_BIT, 0, mb, null, null);
            }
            org.lwjgl.vulkan.VK10.vkCmdFillBuffer(c, word.handle, 0, 4, 1);
            vk.hostBarrier(c);
        });
        double[] submitCall = new double[iters], toWord = new double[iters], toFence = new double[iters];
        for (int i = 0; i < warm + iters; i++) {
            w.set(JAVA_INT, 0, 0);
            long t0 = System.nanoTime();
            vk.submit();
            long ts = System.nanoTime();
            while ((int) WORD.getVolatile(w, 0L) == 0) {
                Thread.onSpinWait();
            }
            long t1 = System.nanoTime();
            vk.waitSpin();
            long t2 = System.nanoTime();
            if (i >= warm) {
                submitCall[i - warm] = ts - t0;
                toWord[i - warm] = t1 - t0;
                toFence[i - warm] = t2 - t0;
            }
        }
        out.figure(METRIC, "raw Vulkan vkQueueSubmit call alone (probe)", 0, "µs", micros(submitCall));
        out.figure(METRIC, "raw Vulkan completion word (probe)", 0, "µs", micros(toWord));
        out.figure(METRIC, "raw Vulkan completion word, then fence (probe)", 0, "µs", micros(toFence));
        return warm + iters;
    }

    /**
     * The same round trip on another compute-capable queue family, where the device has one besides the family jkompute
     * picks by default (compute-only first): on NVIDIA that is the graphics+compute family 0, the old default, kept
     * here so every run confirms the rule.
     */
    private static void otherFamily(Context ctx, Recorder out, Arena arena, int iters, int warm) {
        int used = ctx.vulkan().family();
        int family = ctx.manager().deviceProperties().queueFamilies().stream()
                .filter(q -> q.compute() && q.index() != used).mapToInt(q -> q.index()).findFirst().orElse(-1);
        if (family < 0) {
            out.note("no compute queue family besides family " + used + ": the other-family rows were not run");
            ctx.step("");
            ctx.step("");
            return;
        }
        boolean graphics = ctx.manager().deviceProperties().queueFamilies().get(family).graphics();
        String suffix = ", family " + family + (graphics ? " (graphics+compute)" : " (compute-only)");
        try (Manager other = new Manager(0, new int[] {family}, List.of())) {
            jkompute(ctx, out, other, suffix, List.of(WaitStrategy.HYBRID), arena, iters, warm);
        }
        try (RawVulkan vk = new RawVulkan(16, family, false)) {
            rawVulkan(ctx, out, vk, suffix, false, arena, iters, warm);
        }
    }

    private static void rawCuda(Context ctx, Recorder out, Arena arena, int iters, int warm) {
        RawCuda cu = ctx.cuda();
        if (cu == null) {
            ctx.step("");
            return;
        }
        MemorySegment init = HostData.randomInts(arena, N, ctx.seed());
        long bytes = N * 4L;
        long d = cu.malloc(bytes);
        MemorySegment pinned = cu.hostAlloc(bytes);
        try {
            MemorySegment.copy(init, 0, pinned, 0, bytes);
            cu.copyHtoD(d, pinned, bytes);
            RawCuda.Launch tiny = cu.kernel("tiny", 1, N, d);
            tiny.launch();
            cu.synchronize();
            cu.copyDtoH(pinned, d, bytes);
            if (!out.check("tiny dispatch raw CUDA", counterCheck(init, pinned, 1))) {
                return;
            }
            double[] ns = Timing.wall(() -> {
                tiny.launch();
                cu.synchronize();
            }, warm, iters);
            out.figure(METRIC, "raw CUDA launch+sync", 0, "µs", micros(ns));
            cu.copyDtoH(pinned, d, bytes);
            long total = 1 + warm + iters;
            out.check("tiny dispatch raw CUDA, counters after " + total + " launches", counterCheck(init, pinned, total));
        } finally {
            cu.freeHost(pinned);
            cu.free(d);
            ctx.step("latency raw CUDA");
        }
    }
}

package io.jkompute.bench.internal;

import static io.jkompute.bench.BenchOptions.formatBytes;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import io.jkompute.Algorithm;
import io.jkompute.Constants;
import io.jkompute.DataType;
import io.jkompute.Manager;
import io.jkompute.MemoryType;
import io.jkompute.OpAlgoDispatch;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Tensor;
import io.jkompute.Workgroup;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Suite 6, reduction: the sum of a float32 tensor in two passes (per-workgroup partial sums, then one workgroup over
 * the partials), GB/s of input read, through jkompute, raw Vulkan and the same two kernels in raw CUDA. The GPU sum is
 * checked against a double-precision CPU sum.
 */
public final class ReductionSuite implements Suite {
    /** Enough workgroups of 256 to fill an H100/H200 (132 SMs × 8), few enough for a one-workgroup second pass. */
    static final int GROUPS = 1024;
    static final String JK = "jkompute", VK = "raw Vulkan", CU = "raw CUDA";

    @Override
    public String name() {
        return "reduction";
    }

    @Override
    public String title() {
        return "Reduction (sum of float32)";
    }

    @Override
    public int steps(Context ctx) {
        return ctx.options().sizes().length * 3;
    }

    @Override
    public void run(Context ctx, Recorder out) {
        byte[] partials = Shaders.spirv(Shaders.PARTIALS), finish = Shaders.spirv(Shaders.FINISH);
        long[] sizes = ctx.options().sizes();
        long maxRange = ctx.manager().deviceProperties().limits().maxStorageBufferRange();
        long top = 0;
        for (long bytes : sizes) {
            if (bytes > maxRange) {
                out.note(formatBytes(bytes) + " skipped: over the device's maxStorageBufferRange of " + maxRange + " bytes");
                ctx.step("");
                ctx.step("");
                ctx.step("");
                continue;
            }
            top = bytes;
            long n = bytes / 4;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment x = HostData.randomFloats(arena, n, ctx.seed());
                double reference = HostData.sum(x, n);
                jkompute(ctx, out, partials, finish, x, reference, bytes);
                ctx.step("reduction " + formatBytes(bytes) + " " + JK);
                rawVulkan(ctx, out, partials, finish, x, reference, bytes);
                ctx.step("reduction " + formatBytes(bytes) + " " + VK);
                rawCuda(ctx, out, x, reference, bytes);
                ctx.step("reduction " + formatBytes(bytes) + " " + CU);
            }
        }
        if (ctx.cuda() == null) {
            out.note("raw CUDA rows skipped: " + ctx.cudaMissing());
        }
        String at = " at " + formatBytes(top);
        out.ratio("sum jkompute / raw CUDA" + at, out.find("sum", JK, top), out.find("sum", CU, top), 0.95, true,
                "GB/s read, GPU time");
        out.ratio("sum jkompute / raw Vulkan" + at, out.find("sum", JK, top), out.find("sum", VK, top), Double.NaN, true,
                "the library's overhead over the same SPIR-V");
    }

    private static void jkompute(Context ctx, Recorder out, byte[] partials, byte[] finish, MemorySegment x, double ref,
            long bytes) {
        Manager mgr = ctx.manager();
        long n = bytes / 4, n4 = n / 4;
        int groups = Shaders.groups(n4, GROUPS);
        try (Tensor tx = mgr.tensor(DataType.FLOAT32, new long[] {n}, MemoryType.DEVICE);
                Tensor tp = mgr.tensor(DataType.FLOAT32, new long[] {groups}, MemoryType.DEVICE);
                Tensor ts = mgr.tensor(DataType.FLOAT32, new long[] {1}, MemoryType.DEVICE);
                Algorithm p = mgr.algorithm(List.of(tx, tp), partials, Workgroup.of(groups), Constants.NONE,
                        Constants.builder().uint32(n4).build());
                Algorithm f = mgr.algorithm(List.of(tp, ts), finish, Workgroup.of(1), Constants.NONE,
                        Constants.builder().uint32(groups).build())) {
            MemorySegment.copy(x, 0, tx.data(), 0, bytes);
            mgr.eval(new OpSyncDevice(tx), new OpAlgoDispatch(p), new OpAlgoDispatch(f), new OpSyncLocal(ts));
            if (out.check("sum " + formatBytes(bytes) + " " + JK, HostData.checkSum(ref, ts.toFloatArray()[0], n))) {
                double[] ns = Timing.jkompute(mgr, List.of(new OpAlgoDispatch(p), new OpAlgoDispatch(f)), ctx.reps(), ctx.rounds());
                out.figure("sum", JK, bytes, "GB/s", Timing.rate(ns, bytes));
            }
        }
    }

    private static void rawVulkan(Context ctx, Recorder out, byte[] partials, byte[] finish, MemorySegment x, double ref,
            long bytes) {
        RawVulkan vk = ctx.vulkan();
        long n = bytes / 4, n4 = n / 4;
        int groups = Shaders.groups(n4, GROUPS);
        try {
            RawVulkan.Buffer bx = vk.buffer(bytes, false), bp = vk.buffer(groups * 4L, false), bs = vk.buffer(16, false);
            RawVulkan.Buffer staging = vk.buffer(bytes, true);
            BandwidthSuite.upload(vk, staging, x, bx, bytes);
            RawVulkan.Pipeline p = vk.pipeline(partials, 4, bx, bp);
            RawVulkan.Pipeline f = vk.pipeline(finish, 4, bp, bs);
            ByteBuffer pPush = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()).putInt(0, (int) n4);
            ByteBuffer fPush = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()).putInt(0, groups);
            vk.record(c -> {
                p.dispatch(c, pPush, groups);
                f.dispatch(c, fPush, 1);
                vk.copy(c, bs, staging, 4);
                vk.hostBarrier(c);
            });
            vk.submitAndWait();
            float got = staging.mapped().get(JAVA_FLOAT, 0);
            if (out.check("sum " + formatBytes(bytes) + " " + VK, HostData.checkSum(ref, got, n))) {
                double[] ns = Timing.vulkan(vk, c -> {
                    p.dispatch(c, pPush, groups);
                    f.dispatch(c, fPush, 1);
                }, ctx.reps(), ctx.rounds());
                out.figure("sum", VK, bytes, "GB/s", Timing.rate(ns, bytes));
            }
        } finally {
            vk.freeAll();
        }
    }

    private static void rawCuda(Context ctx, Recorder out, MemorySegment x, double ref, long bytes) {
        RawCuda cu = ctx.cuda();
        if (cu == null) {
            return;
        }
        long n = bytes / 4, n4 = n / 4;
        int groups = Shaders.groups(n4, GROUPS);
        long dx = cu.malloc(bytes), dp = cu.malloc(groups * 4L), ds = cu.malloc(16);
        MemorySegment pinned = cu.hostAlloc(bytes);
        try {
            MemorySegment.copy(x, 0, pinned, 0, bytes);
            cu.copyHtoD(dx, pinned, bytes);
            RawCuda.Launch p = cu.kernel("partials", groups, Shaders.LOCAL, dx, dp, (int) n4);
            RawCuda.Launch f = cu.kernel("finish", 1, Shaders.LOCAL, dp, ds, groups);
            Runnable both = () -> {
                p.launch();
                f.launch();
            };
            both.run();
            cu.synchronize();
            cu.copyDtoH(pinned, ds, 4);
            if (out.check("sum " + formatBytes(bytes) + " " + CU, HostData.checkSum(ref, pinned.get(JAVA_FLOAT, 0), n))) {
                out.figure("sum", CU, bytes, "GB/s", Timing.rate(Timing.cuda(cu, both, ctx.reps(), ctx.rounds()), bytes));
            }
        } finally {
            cu.freeHost(pinned);
            cu.free(dx);
            cu.free(dp);
            cu.free(ds);
        }
    }
}

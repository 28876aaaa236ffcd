package io.jkompute.bench.internal;

import static io.jkompute.bench.BenchOptions.formatBytes;

import io.jkompute.Algorithm;
import io.jkompute.Constants;
import io.jkompute.DataType;
import io.jkompute.Manager;
import io.jkompute.MemoryType;
import io.jkompute.OpAlgoDispatch;
import io.jkompute.OpCopy;
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
 * Suite 1, streaming bandwidth: saxpy (2 reads + 1 write) and copy (1 read + 1 write) of float32 buffers, through
 * jkompute, the same SPIR-V through raw Vulkan, the same algorithm in raw CUDA, and each API's own device-to-device
 * copy command (jkompute's {@code OpCopy}, {@code vkCmdCopyBuffer}, {@code cuMemcpyDtoD}). GB/s from GPU timestamps.
 */
public final class BandwidthSuite implements Suite {
    static final int MAX_GROUPS = 65_535;
    static final String JK = "jkompute", VK = "raw Vulkan", CU = "raw CUDA";
    static final String JK_OPCOPY = "jkompute OpCopy", VK_COPYCMD = "vkCmdCopyBuffer", CU_MEMCPY = "cuMemcpyDtoD";

    @Override
    public String name() {
        return "bandwidth";
    }

    @Override
    public String title() {
        return "Streaming bandwidth (saxpy, copy)";
    }

    @Override
    public int steps(Context ctx) {
        return ctx.options().sizes().length * 4;
    }

    @Override
    public void run(Context ctx, Recorder out) {
        byte[] saxpy = Shaders.spirv(Shaders.SAXPY), copy = Shaders.spirv(Shaders.COPY);
        long[] sizes = ctx.options().sizes();
        long maxRange = ctx.manager().deviceProperties().limits().maxStorageBufferRange();
        for (long bytes : sizes) {
            if (bytes > maxRange) {
                out.note(formatBytes(bytes) + " skipped: over the device's maxStorageBufferRange of " + maxRange + " bytes");
                for (int i = 0; i < 4; i++) ctx.step("");
                continue;
            }
            long n = bytes / 4;
            float a = ctx.nextFloat(0.5f, 2f);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment x = HostData.randomFloats(arena, n, ctx.seed());
                MemorySegment y = HostData.randomFloats(arena, n, ctx.seed());
                jkompute(ctx, out, saxpy, copy, a, x, y, bytes);
                ctx.step("bandwidth " + formatBytes(bytes) + " " + JK);
                rawVulkan(ctx, out, saxpy, copy, a, x, y, bytes);
                ctx.step("bandwidth " + formatBytes(bytes) + " " + VK);
                rawCuda(ctx, out, a, x, y, bytes);
                ctx.step("bandwidth " + formatBytes(bytes) + " " + CU);
                copyProbe(ctx, out, y, bytes);
                ctx.step("bandwidth " + formatBytes(bytes) + " copy probe");
            }
        }
        if (ctx.cuda() == null) {
            out.note("raw CUDA rows skipped: " + ctx.cudaMissing());
        }
        if (ctx.vulkanDeviceAddress() == null) {
            out.note("device-address copy probe skipped: " + ctx.deviceAddressMissing());
        }
        RawVulkan vk = ctx.vulkan();
        StringBuilder types = new StringBuilder("copy probe: the plain " + VK_COPYCMD + " row uses memory type "
                + vk.defaultDeviceType() + "; device-local types here:");
        vk.deviceLocalTypes().forEach((i, t) -> types.append(" ").append(i).append(" = ").append(t).append(";"));
        out.note(types.toString());
        long top = sizes[sizes.length - 1];
        for (long b : sizes) {
            if (out.find("saxpy", JK, b).isPresent()) top = b;
        }
        String at = " at " + formatBytes(top);
        out.ratio("saxpy jkompute / raw CUDA" + at, out.find("saxpy", JK, top), out.find("saxpy", CU, top), 0.95, true,
                "GB/s, GPU time");
        out.ratio("copy jkompute / raw CUDA" + at, out.find("copy", JK, top), out.find("copy", CU, top), 0.95, true,
                "GB/s, GPU time");
        out.ratio("saxpy jkompute / raw Vulkan" + at, out.find("saxpy", JK, top), out.find("saxpy", VK, top), Double.NaN,
                true, "the library's overhead over the same SPIR-V");
        out.ratio("copy jkompute / raw Vulkan" + at, out.find("copy", JK, top), out.find("copy", VK, top), Double.NaN, true,
                "the library's overhead over the same SPIR-V");
        out.ratio("OpCopy / jkompute shader copy" + at, out.find("copy", JK_OPCOPY, top), out.find("copy", JK, top),
                Double.NaN, true, "OpCopy records vkCmdCopyBuffer; below 1 means a shader copy would be faster");
    }

    private static void jkompute(Context ctx, Recorder out, byte[] saxpy, byte[] copy, float a, MemorySegment x,
            MemorySegment y, long bytes) {
        Manager mgr = ctx.manager();
        long n = bytes / 4, n4 = n / 4;
        int groups = Shaders.groups(n4, MAX_GROUPS);
        String label = formatBytes(bytes) + " " + JK;
        try (Tensor tx = mgr.tensor(DataType.FLOAT32, new long[] {n}, MemoryType.DEVICE);
                Tensor ty = mgr.tensor(DataType.FLOAT32, new long[] {n}, MemoryType.DEVICE);
                Tensor to = mgr.tensor(DataType.FLOAT32, new long[] {n}, MemoryType.DEVICE);
                Algorithm sax = mgr.algorithm(List.of(tx, ty, to), saxpy, Workgroup.of(groups), Constants.NONE,
                        Constants.builder().float32(a).uint32(n4).build());
                Algorithm cp = mgr.algorithm(List.of(tx, to), copy, Workgroup.of(groups), Constants.NONE,
                        Constants.builder().uint32(n4).build())) {
            MemorySegment.copy(x, 0, tx.data(), 0, bytes);
            MemorySegment.copy(y, 0, ty.data(), 0, bytes);
            mgr.eval(new OpSyncDevice(tx, ty));
            mgr.eval(new OpAlgoDispatch(sax), new OpSyncLocal(to));
            if (out.check("saxpy " + label, HostData.checkSaxpy(a, x, y, to.data(), n))) {
                double[] ns = Timing.jkompute(mgr, List.of(new OpAlgoDispatch(sax)), ctx.reps(), ctx.rounds());
                out.figure("saxpy", JK, bytes, "GB/s", Timing.rate(ns, 3 * bytes));
            }
            mgr.eval(new OpAlgoDispatch(cp), new OpSyncLocal(to));
            if (out.check("copy " + label, HostData.checkEqual(x, to.data(), bytes))) {
                double[] ns = Timing.jkompute(mgr, List.of(new OpAlgoDispatch(cp)), ctx.reps(), ctx.rounds());
                out.figure("copy", JK, bytes, "GB/s", Timing.rate(ns, 2 * bytes));
            }
            // OpCopy from y so that a copy that does nothing cannot pass on the previous result
            mgr.eval(new OpCopy(ty, to), new OpSyncLocal(to));
            if (out.check("copy " + formatBytes(bytes) + " " + JK_OPCOPY, HostData.checkEqual(y, to.data(), bytes))) {
                double[] ns = Timing.jkompute(mgr, List.of(new OpCopy(ty, to)), ctx.reps(), ctx.rounds());
                out.figure("copy", JK_OPCOPY, bytes, "GB/s", Timing.rate(ns, 2 * bytes));
            }
        }
    }

    private static void rawVulkan(Context ctx, Recorder out, byte[] saxpy, byte[] copy, float a, MemorySegment x,
            MemorySegment y, long bytes) {
        RawVulkan vk = ctx.vulkan();
        long n = bytes / 4, n4 = n / 4;
        int groups = Shaders.groups(n4, MAX_GROUPS);
        String label = formatBytes(bytes) + " " + VK;
        try {
            RawVulkan.Buffer bx = vk.buffer(bytes, false), by = vk.buffer(bytes, false), bo = vk.buffer(bytes, false);
            RawVulkan.Buffer staging = vk.buffer(bytes, true);
            upload(vk, staging, x, bx, bytes);
            upload(vk, staging, y, by, bytes);
            RawVulkan.Pipeline sax = vk.pipeline(saxpy, 8, bx, by, bo);
            RawVulkan.Pipeline cp = vk.pipeline(copy, 4, bx, bo);
            ByteBuffer saxPush = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder()).putFloat(0, a).putInt(4, (int) n4);
            ByteBuffer cpPush = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()).putInt(0, (int) n4);

            vk.record(c -> {
                sax.dispatch(c, saxPush, groups);
                vk.copy(c, bo, staging, bytes);
                vk.hostBarrier(c);
            });
            vk.submitAndWait();
            if (out.check("saxpy " + label, HostData.checkSaxpy(a, x, y, staging.mapped(), n))) {
                double[] ns = Timing.vulkan(vk, c -> sax.dispatch(c, saxPush, groups), ctx.reps(), ctx.rounds());
                out.figure("saxpy", VK, bytes, "GB/s", Timing.rate(ns, 3 * bytes));
            }
            vk.record(c -> {
                cp.dispatch(c, cpPush, groups);
                vk.copy(c, bo, staging, bytes);
                vk.hostBarrier(c);
            });
            vk.submitAndWait();
            if (out.check("copy " + label, HostData.checkEqual(x, staging.mapped(), bytes))) {
                double[] ns = Timing.vulkan(vk, c -> cp.dispatch(c, cpPush, groups), ctx.reps(), ctx.rounds());
                out.figure("copy", VK, bytes, "GB/s", Timing.rate(ns, 2 * bytes));
            }
            vk.record(c -> {
                vk.copy(c, by, bo, bytes);
                vk.copy(c, bo, staging, bytes);
                vk.hostBarrier(c);
            });
            vk.submitAndWait();
            if (out.check("copy " + formatBytes(bytes) + " " + VK_COPYCMD, HostData.checkEqual(y, staging.mapped(), bytes))) {
                double[] ns = Timing.vulkan(vk, c -> vk.copy(c, by, bo, bytes), ctx.reps(), ctx.rounds());
                out.figure("copy", VK_COPYCMD, bytes, "GB/s", Timing.rate(ns, 2 * bytes));
            }
        } finally {
            vk.freeAll();
        }
    }

    /**
     * Why does jkompute's {@code OpCopy} (vkCmdCopyBuffer on VMA memory) run at shader speed on NVIDIA when the plain
     * raw {@code vkCmdCopyBuffer} does not? The same copy with the memory allocated the ways VMA does: dedicated, and
     * with the device-address flag on a device with {@code bufferDeviceAddress} enabled (jkompute enables it).
     */
    private static void copyProbe(Context ctx, Recorder out, MemorySegment y, long bytes) {
        RawVulkan vk = ctx.vulkan();
        probeCopy(ctx, out, vk, RawVulkan.Alloc.DEDICATED, -1, "dedicated", y, bytes);
        RawVulkan bda = ctx.vulkanDeviceAddress();
        if (bda != null) {
            probeCopy(ctx, out, bda, RawVulkan.Alloc.DEVICE_ADDRESS, -1, "device-address", y, bytes);
        }
        int usual = vk.defaultDeviceType();
        for (var t : vk.deviceLocalTypes().entrySet()) {
            if (t.getKey() != usual) {
                probeCopy(ctx, out, vk, RawVulkan.Alloc.PLAIN, t.getKey(), "memory type " + t.getKey(), y, bytes);
            }
        }
    }

    /** The probe's rows, and a note naming the memory types (once). */
    static final String PROBE = "copy probe (vkCmdCopyBuffer, raw Vulkan)";

    private static void probeCopy(Context ctx, Recorder out, RawVulkan vk, RawVulkan.Alloc alloc, int memoryType, String impl,
            MemorySegment y, long bytes) {
        try {
            RawVulkan.Buffer src = vk.buffer(bytes, false, alloc, memoryType), dst = vk.buffer(bytes, false, alloc, memoryType);
            RawVulkan.Buffer staging = vk.buffer(bytes, true);
            upload(vk, staging, y, src, bytes);
            staging.mapped().fill((byte) 0);
            vk.record(c -> {
                vk.copy(c, src, dst, bytes);
                vk.copy(c, dst, staging, bytes);
                vk.hostBarrier(c);
            });
            vk.submitAndWait();
            if (out.check("copy " + formatBytes(bytes) + " " + impl, HostData.checkEqual(y, staging.mapped(), bytes))) {
                double[] ns = Timing.vulkan(vk, c -> vk.copy(c, src, dst, bytes), ctx.reps(), ctx.rounds());
                out.figure(PROBE, impl, bytes, "GB/s", Timing.rate(ns, 2 * bytes));
            }
        } finally {
            vk.freeAll();
        }
    }

    /** host → staging (CPU) → device buffer (vkCmdCopyBuffer). */
    static void upload(RawVulkan vk, RawVulkan.Buffer staging, MemorySegment src, RawVulkan.Buffer dst, long bytes) {
        MemorySegment.copy(src, 0, staging.mapped(), 0, bytes);
        vk.record(c -> vk.copy(c, staging, dst, bytes));
        vk.submitAndWait();
    }

    private static void rawCuda(Context ctx, Recorder out, float a, MemorySegment x, MemorySegment y, long bytes) {
        RawCuda cu = ctx.cuda();
        if (cu == null) {
            return;
        }
        long n = bytes / 4, n4 = n / 4;
        int groups = Shaders.groups(n4, MAX_GROUPS);
        String label = formatBytes(bytes) + " " + CU;
        long dx = cu.malloc(bytes), dy = cu.malloc(bytes), dout = cu.malloc(bytes);
        MemorySegment pinned = cu.hostAlloc(bytes);
        try {
            MemorySegment.copy(x, 0, pinned, 0, bytes);
            cu.copyHtoD(dx, pinned, bytes);
            MemorySegment.copy(y, 0, pinned, 0, bytes);
            cu.copyHtoD(dy, pinned, bytes);
            RawCuda.Launch sax = cu.kernel("saxpy", groups, Shaders.LOCAL, a, dx, dy, dout, (int) n4);
            RawCuda.Launch cp = cu.kernel("copy4", groups, Shaders.LOCAL, dx, dout, (int) n4);
            sax.launch();
            cu.synchronize();
            cu.copyDtoH(pinned, dout, bytes);
            if (out.check("saxpy " + label, HostData.checkSaxpy(a, x, y, pinned, n))) {
                out.figure("saxpy", CU, bytes, "GB/s", Timing.rate(Timing.cuda(cu, sax::launch, ctx.reps(), ctx.rounds()), 3 * bytes));
            }
            cp.launch();
            cu.synchronize();
            cu.copyDtoH(pinned, dout, bytes);
            if (out.check("copy " + label, HostData.checkEqual(x, pinned, bytes))) {
                out.figure("copy", CU, bytes, "GB/s", Timing.rate(Timing.cuda(cu, cp::launch, ctx.reps(), ctx.rounds()), 2 * bytes));
            }
            cu.copyDtoD(dout, dy, bytes);
            cu.synchronize();
            cu.copyDtoH(pinned, dout, bytes);
            if (out.check("copy " + formatBytes(bytes) + " " + CU_MEMCPY, HostData.checkEqual(y, pinned, bytes))) {
                double[] ns = Timing.cuda(cu, () -> cu.copyDtoD(dout, dy, bytes), ctx.reps(), ctx.rounds());
                out.figure("copy", CU_MEMCPY, bytes, "GB/s", Timing.rate(ns, 2 * bytes));
            }
        } finally {
            cu.freeHost(pinned);
            cu.free(dx);
            cu.free(dy);
            cu.free(dout);
        }
    }
}

package io.jkompute.bench.internal;

import static io.jkompute.bench.BenchOptions.formatBytes;

import io.jkompute.DataType;
import io.jkompute.Manager;
import io.jkompute.MemoryType;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Sequence;
import io.jkompute.Tensor;
import io.jkompute.WaitStrategy;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Suite 4, host ↔ device transfers: {@code OpSyncDevice} / {@code OpSyncLocal} of a DEVICE tensor whose data is
 * already in its staging memory (written through {@code data()}), against a raw Vulkan staging copy
 * ({@code vkCmdCopyBuffer} from/to a host-visible buffer, submit + fence) and pinned {@code cuMemcpyHtoD/DtoH}. Wall
 * time of each whole call, so submission and waiting count as they do for a user. Also the end-to-end cost from a Java
 * {@code float[]}: {@code setData} + {@code OpSyncDevice}.
 */
public final class TransferSuite implements Suite {
    static final String H2D = "host→device", D2H = "device→host", FROM_ARRAY = "float[]→device";
    static final String JK_SPIN = "jkompute, SPIN wait";
    static final String JK_PARALLEL = "jkompute + parallel host copy";
    static final String JK = "jkompute", VK = "raw Vulkan staging", CU = "raw CUDA pinned";

    @Override
    public String name() {
        return "transfers";
    }

    @Override
    public String title() {
        return "Host ↔ device transfers";
    }

    @Override
    public int steps(Context ctx) {
        return ctx.options().sizes().length * 3;
    }

    private static int reps(Context ctx, long bytes) {
        if (ctx.quick()) return 3;
        return bytes >= (256L << 20) ? 5 : 20;
    }

    @Override
    public void run(Context ctx, Recorder out) {
        long[] sizes = ctx.options().sizes();
        for (long bytes : sizes) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment src = HostData.randomFloats(arena, bytes / 4, ctx.seed());
                jkompute(ctx, out, src, bytes);
                ctx.step("transfers " + formatBytes(bytes) + " " + JK);
                rawVulkan(ctx, out, src, bytes);
                ctx.step("transfers " + formatBytes(bytes) + " " + VK);
                rawCuda(ctx, out, src, bytes);
                ctx.step("transfers " + formatBytes(bytes) + " " + CU);
            }
        }
        if (ctx.cuda() == null) {
            out.note("raw CUDA rows skipped: " + ctx.cudaMissing());
        }
        long top = sizes[sizes.length - 1];
        String at = " at " + formatBytes(top);
        out.ratio("OpSyncDevice / pinned cuMemcpyHtoD" + at, out.find(H2D, JK, top), out.find(H2D, CU, top), 0.8, true, "GB/s, wall");
        out.ratio("OpSyncLocal / pinned cuMemcpyDtoH" + at, out.find(D2H, JK, top), out.find(D2H, CU, top), 0.8, true, "GB/s, wall");
        out.ratio("OpSyncDevice / raw Vulkan staging copy" + at, out.find(H2D, JK, top), out.find(H2D, VK, top), Double.NaN,
                true, "the library's overhead over the same copy");
        out.ratio("OpSyncLocal / raw Vulkan staging copy" + at, out.find(D2H, JK, top), out.find(D2H, VK, top), Double.NaN,
                true, "the library's overhead over the same copy");
        out.ratio("setData(float[]) + OpSyncDevice / pinned cuMemcpyHtoD" + at, out.find(FROM_ARRAY, JK, top),
                out.find(H2D, CU, top), Double.NaN, true, "what a caller holding a Java array gets");
        out.ratio("parallel host copy + OpSyncDevice / pinned cuMemcpyHtoD" + at, out.find(FROM_ARRAY, JK_PARALLEL, top),
                out.find(H2D, CU, top), Double.NaN, true, "what a multi-threaded setData would give");
    }

    private static void jkompute(Context ctx, Recorder out, MemorySegment src, long bytes) {
        Manager mgr = ctx.manager();
        int reps = reps(ctx, bytes);
        String label = formatBytes(bytes) + " " + JK;
        try (Tensor t = mgr.tensor(DataType.FLOAT32, new long[] {bytes / 4}, MemoryType.DEVICE);
                Sequence up = mgr.sequence();
                Sequence down = mgr.sequence()) {
            up.record(new OpSyncDevice(t));
            down.record(new OpSyncLocal(t));
            MemorySegment.copy(src, 0, t.data(), 0, bytes);
            up.eval();
            t.data().fill((byte) 0);
            down.eval();
            if (!out.check("round trip " + label, HostData.checkEqual(src, t.data(), bytes))) {
                return;
            }
            out.figure(H2D, JK, bytes, "GB/s", Timing.rate(Timing.wall(up::eval, 1, reps), bytes));
            out.figure(D2H, JK, bytes, "GB/s", Timing.rate(Timing.wall(down::eval, 1, reps), bytes));
            // the default HYBRID wait blocks after 200 µs; a copy that takes longer pays a thread wake-up
            up.setWaitStrategy(WaitStrategy.SPIN);
            down.setWaitStrategy(WaitStrategy.SPIN);
            out.figure(H2D, JK_SPIN, bytes, "GB/s", Timing.rate(Timing.wall(up::eval, 1, reps), bytes));
            out.figure(D2H, JK_SPIN, bytes, "GB/s", Timing.rate(Timing.wall(down::eval, 1, reps), bytes));
            up.setWaitStrategy(WaitStrategy.HYBRID);
            down.setWaitStrategy(WaitStrategy.HYBRID);
            float[] array = src.toArray(java.lang.foreign.ValueLayout.JAVA_FLOAT);
            out.figure(FROM_ARRAY, JK, bytes, "GB/s", Timing.rate(Timing.wall(() -> {
                t.setData(array);
                up.eval();
            }, 1, reps), bytes));
            // what a multi-threaded setData would give (a proposal for the core, measured here without touching it)
            MemorySegment heap = MemorySegment.ofArray(array);
            MemorySegment staging = t.data();
            long chunk = Math.max(1L << 20, (bytes / Runtime.getRuntime().availableProcessors() + 63) & ~63L);
            int chunks = (int) ((bytes + chunk - 1) / chunk);
            out.figure(FROM_ARRAY, JK_PARALLEL, bytes, "GB/s", Timing.rate(Timing.wall(() -> {
                java.util.stream.IntStream.range(0, chunks).parallel().forEach(i -> {
                    long off = i * chunk;
                    MemorySegment.copy(heap, off, staging, off, Math.min(chunk, bytes - off));
                });
                up.eval();
            }, 1, reps), bytes));
            up.eval();
            t.data().fill((byte) 0);
            down.eval();
            out.check("parallel host copy " + label, HostData.checkEqual(src, t.data(), bytes));
        }
    }

    private static void rawVulkan(Context ctx, Recorder out, MemorySegment src, long bytes) {
        RawVulkan vk = ctx.vulkan();
        int reps = reps(ctx, bytes);
        try {
            RawVulkan.Buffer dev = vk.buffer(bytes, false), staging = vk.buffer(bytes, true);
            BandwidthSuite.upload(vk, staging, src, dev, bytes);
            staging.mapped().fill((byte) 0);
            vk.record(c -> {
                vk.copy(c, dev, staging, bytes);
                vk.hostBarrier(c);
            });
            vk.submitAndWait();
            if (!out.check("round trip " + formatBytes(bytes) + " " + VK, HostData.checkEqual(src, staging.mapped(), bytes))) {
                return;
            }
            out.figure(D2H, VK, bytes, "GB/s", Timing.rate(Timing.wall(vk::submitAndWait, 1, reps), bytes));
            vk.record(c -> vk.copy(c, staging, dev, bytes));
            out.figure(H2D, VK, bytes, "GB/s", Timing.rate(Timing.wall(vk::submitAndWait, 1, reps), bytes));
        } finally {
            vk.freeAll();
        }
    }

    private static void rawCuda(Context ctx, Recorder out, MemorySegment src, long bytes) {
        RawCuda cu = ctx.cuda();
        if (cu == null) {
            return;
        }
        int reps = reps(ctx, bytes);
        long d = cu.malloc(bytes);
        MemorySegment pinned = cu.hostAlloc(bytes);
        try {
            MemorySegment.copy(src, 0, pinned, 0, bytes);
            cu.copyHtoD(d, pinned, bytes);
            pinned.fill((byte) 0);
            cu.copyDtoH(pinned, d, bytes);
            if (!out.check("round trip " + formatBytes(bytes) + " " + CU, HostData.checkEqual(src, pinned, bytes))) {
                return;
            }
            out.figure(H2D, CU, bytes, "GB/s", Timing.rate(Timing.wall(() -> cu.copyHtoD(d, pinned, bytes), 1, reps), bytes));
            out.figure(D2H, CU, bytes, "GB/s", Timing.rate(Timing.wall(() -> cu.copyDtoH(pinned, d, bytes), 1, reps), bytes));
        } finally {
            cu.freeHost(pinned);
            cu.free(d);
        }
    }
}

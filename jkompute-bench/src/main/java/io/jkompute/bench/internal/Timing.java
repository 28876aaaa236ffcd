package io.jkompute.bench.internal;

import io.jkompute.Manager;
import io.jkompute.Op;
import io.jkompute.Sequence;
import io.jkompute.bench.Summary;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.Consumer;
import org.lwjgl.vulkan.VkCommandBuffer;

/**
 * GPU-side timing, the same way for each implementation: one warm-up, then {@code rounds} submissions of {@code reps}
 * back-to-back samples, each sample bracketed by GPU timestamps (Vulkan) or events (CUDA).
 */
final class Timing {
    private Timing() {}

    /** jkompute: a sequence with a timestamp after every operation; a sample is {@code ops} recorded once per rep. */
    static double[] jkompute(Manager mgr, List<Op> ops, int reps, int rounds) {
        int k = ops.size();
        double period = mgr.deviceProperties().limits().timestampPeriodNanos();
        try (Sequence seq = mgr.sequence(0, reps * k + 1)) {
            for (int r = 0; r < reps; r++) {
                for (Op op : ops) seq.record(op);
            }
            seq.eval();
            double[] out = new double[reps * rounds];
            for (int round = 0; round < rounds; round++) {
                seq.eval();
                long[] ts = seq.getTimestamps();
                for (int r = 0; r < reps; r++) {
                    out[round * reps + r] = (ts[(r + 1) * k] - ts[r * k]) * period;
                }
            }
            return out;
        }
    }

    /** Raw Vulkan: one command buffer, a timestamp before the first sample and after each. */
    static double[] vulkan(RawVulkan vk, Consumer<VkCommandBuffer> sample, int reps, int rounds) {
        vk.record(c -> {
            vk.resetQueries(c);
            vk.timestampTop(c, 0);
            for (int r = 0; r < reps; r++) {
                sample.accept(c);
                vk.timestamp(c, r + 1);
            }
        });
        vk.submitAndWait();
        double[] out = new double[reps * rounds];
        for (int round = 0; round < rounds; round++) {
            vk.submitAndWait();
            double[] ts = vk.timestampsNanos(reps + 1);
            for (int r = 0; r < reps; r++) out[round * reps + r] = ts[r + 1] - ts[r];
        }
        return out;
    }

    /** Raw CUDA: an event before the first sample and after each, on the default stream. */
    static double[] cuda(RawCuda cu, Runnable sample, int reps, int rounds) {
        MemorySegment[] ev = new MemorySegment[reps + 1];
        for (int i = 0; i <= reps; i++) ev[i] = cu.event();
        try {
            sample.run();
            cu.synchronize();
            double[] out = new double[reps * rounds];
            for (int round = 0; round < rounds; round++) {
                cu.record(ev[0]);
                for (int r = 0; r < reps; r++) {
                    sample.run();
                    cu.record(ev[r + 1]);
                }
                cu.synchronize();
                for (int r = 0; r < reps; r++) out[round * reps + r] = cu.elapsedMillis(ev[r], ev[r + 1]) * 1e6;
            }
            return out;
        } finally {
            for (MemorySegment e : ev) cu.destroyEvent(e);
        }
    }

    /** Bytes moved per sample over nanosecond samples: GB/s statistics. */
    static Summary rate(double[] nanos, long bytes) {
        return Summary.of(nanos).reciprocal(bytes);
    }

    /** Wall-clock nanoseconds of {@code reps} calls after {@code warmup} unmeasured ones. */
    static double[] wall(Runnable body, int warmup, int reps) {
        for (int i = 0; i < warmup; i++) body.run();
        double[] out = new double[reps];
        for (int i = 0; i < reps; i++) {
            long t0 = System.nanoTime();
            body.run();
            out[i] = System.nanoTime() - t0;
        }
        return out;
    }
}

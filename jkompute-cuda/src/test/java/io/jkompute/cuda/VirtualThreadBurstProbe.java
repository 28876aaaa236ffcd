package io.jkompute.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Child-process check for the GPU host: in a fresh JVM, 64 virtual threads make their first {@code fill} at once,
 * so every lazily built piece on the way (a layout's VarHandle, a method handle) is built under contention, which
 * moves virtual threads between carrier threads. Before the fix, a bind made before that code was lost and the
 * memset failed with CUDA_ERROR_INVALID_CONTEXT in some runs. Prints "burst ok" or the first failure.
 */
public final class VirtualThreadBurstProbe {
    private VirtualThreadBurstProbe() {}

    public static void main(String[] args) throws Exception {
        if (!Cuda.isAvailable()) {
            System.out.println("burst skipped: " + Cuda.unavailableReason());
            return;
        }
        int failures = 0;
        String first = null;
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<float[]>> results = submit(ex);
            for (int t = 0; t < 64; t++) {
                try {
                    float[] got = results.get(t).get();
                    boolean right = got.length == 1000 + t && got[0] == t * 10_000f;
                    for (int i = 1; i < got.length && right; i++) right = got[i] == t;
                    if (!right) throw new AssertionError("thread " + t + " read wrong values");
                } catch (Exception | AssertionError e) {
                    failures++;
                    if (first == null) first = String.valueOf(e.getCause() != null ? e.getCause() : e);
                }
            }
        }
        System.out.println(failures == 0 ? "burst ok" : "burst FAILED " + failures + "/64: " + first);
        System.exit(failures == 0 ? 0 : 1);
    }

    /**
     * The work {@link DeviceGpuTest#worksFromManyVirtualThreads()} checks: task {@code k} sends 1000+k floats
     * ({@code k*10000 + i}), fills all but the first with {@code k} and reads them back, parking in between.
     */
    static List<Future<float[]>> submit(ExecutorService ex) {
        List<Future<float[]>> results = new ArrayList<>();
        for (int t = 0; t < 64; t++) {
            final int k = t;
            results.add(ex.submit(() -> {
                float[] data = new float[1000 + k];
                for (int i = 0; i < data.length; i++) data[i] = k * 10_000 + i;
                try (GpuArray a = GpuArray.toGpu(data)) {
                    Thread.yield();
                    a.slice(Slice.from(1)).fill(k);
                    Thread.sleep(1);
                    return a.toFloatArray();
                }
            }));
        }
        return results;
    }
}

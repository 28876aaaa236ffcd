package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Reductions under non-default kernel knobs (the internal {@code jkompute.cuda.reduce.*} properties) give the same
 * results as the host: split full sums with a tail (one wave of blocks, or fixed-size blocks whose partials a second
 * kernel or the last block combines), 16-byte-aligned rows one block or one warp each, unaligned rows, argmax's first
 * occurrence, through every load instruction, Hopper's bulk copies into shared memory and persistent blocks taking
 * chunks from a counter.
 */
@Tag("gpu")
class ReductionTuningGpuTest {
    private static final String P = "jkompute.cuda.reduce.";
    private static final String[] NAMES = {"threads", "blocksPerSm", "loads", "rowMode", "rowThreads", "load", "tile", "finish",
        "copy", "stage", "stages", "schedule"};
    private static final String[][] TUNINGS = {
        {"512", "2", "8", "block", "128", "nc_na", "0", "kernel", "loads", "16384", "2", "static"},
        {"256", "8", "1", "warp", "256", "cs", "0", "last", "loads", "16384", "2", "static"},
        {"256", "4", "3", "auto", "512", "nc", "65536", "kernel", "loads", "16384", "2", "static"},
        {"128", "16", "16", "block", "1024", "default", "0", "kernel", "loads", "16384", "2", "static"},
        {"512", "2", "8", "auto", "256", "default", "65536", "last", "loads", "16384", "2", "static"},
        {"256", "4", "4", "auto", "256", "default", "1024", "last", "loads", "16384", "2", "static"},
        // bulk copies (on sm_90 and up; the loads elsewhere), dynamic chunks, both; 1024-element chunks end in a partial stage
        {"512", "2", "8", "auto", "256", "default", "0", "last", "bulk", "16384", "2", "static"},
        {"256", "4", "8", "auto", "256", "default", "0", "kernel", "bulk", "11264", "4", "static"},
        {"512", "2", "8", "auto", "256", "default", "16384", "last", "loads", "16384", "2", "dynamic"},
        {"128", "8", "4", "auto", "256", "default", "1024", "last", "bulk", "8192", "3", "dynamic"},
    };

    /** The knobs as the JVM was started with them (-D flags), put back after each test for the tests that follow. */
    private final java.util.Map<String, String> before = new java.util.HashMap<>();

    @BeforeEach
    void needs() {
        for (String k : NAMES) before.put(k, System.getProperty(P + k));
        GpuTestSupport.requireNvrtc();
    }

    @AfterEach
    void restore() {
        for (String k : NAMES) {
            String v = before.get(k);
            if (v == null) System.clearProperty(P + k);
            else System.setProperty(P + k, v);
        }
    }

    @Test
    void everyTuningMatchesTheHost() {
        Random rnd = new Random(7);
        int n = 3_000_011, r = 2500, c = 4096, ur = 37, uc = 1001;
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = rnd.nextInt(201) - 100; // small integers: float32 sums are exact
        float[] m = new float[r * c];
        for (int i = 0; i < m.length; i++) m[i] = rnd.nextInt(21) - 10;
        float[] u = new float[ur * uc];
        for (int i = 0; i < u.length; i++) u[i] = rnd.nextInt(21) - 10;
        double total = 0;
        for (float v : x) total += v;
        for (String[] t : TUNINGS) {
            for (int i = 0; i < NAMES.length; i++) System.setProperty(P + NAMES[i], t[i]);
            String at = String.join(",", t);
            try (GpuArray a = GpuArray.toGpu(x); GpuArray s = a.sum(); GpuArray mx = a.max(); GpuArray am = a.argmax();
                 GpuArray b = GpuArray.toGpu(m, r, c); GpuArray rs = b.sum(-1); GpuArray ram = b.argmax(-1);
                 GpuArray d = GpuArray.toGpu(u, ur, uc); GpuArray us = d.sum(-1)) {
                assertEquals(total, s.item(), 0.0, "sum all, " + at);
                int hi = 0;
                for (int i = 1; i < n; i++) if (x[i] > x[hi]) hi = i;
                assertEquals(x[hi], mx.item(), 0.0, "max, " + at);
                assertEquals(hi, (long) am.item(), "argmax, " + at);
                float[] grs = rs.toFloatArray();
                long[] gam = (long[]) ram.get();
                for (int i = 0; i < r; i++) {
                    double want = 0;
                    int best = 0;
                    for (int j = 0; j < c; j++) {
                        want += m[i * c + j];
                        if (m[i * c + j] > m[i * c + best]) best = j;
                    }
                    assertEquals(want, grs[i], 0.0, "row " + i + ", " + at);
                    assertEquals(best, gam[i], "argmax of row " + i + " (first occurrence), " + at);
                }
                float[] gus = us.toFloatArray();
                for (int i = 0; i < ur; i++) {
                    double want = 0;
                    for (int j = 0; j < uc; j++) want += u[i * uc + j];
                    assertEquals(want, gus[i], 0.0, "unaligned row " + i + ", " + at);
                }
            }
        }
    }
}

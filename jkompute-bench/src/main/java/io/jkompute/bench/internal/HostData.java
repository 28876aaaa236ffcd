package io.jkompute.bench.internal;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Fresh random input (never zeros) and the CPU reference checks. */
final class HostData {
    private HostData() {}

    /** n floats uniform in [0.25, 1.25): no zeros, no denormals, sums that float can carry. */
    static MemorySegment randomFloats(Arena arena, long n, long seed) {
        MemorySegment s = arena.allocate(n * 4, 64);
        long x = seed | 1;
        for (long i = 0; i < n; i++) {
            x = xorshift(x);
            s.setAtIndex(JAVA_FLOAT, i, 0.25f + (x >>> 40) * 0x1p-24f);
        }
        return s;
    }

    /** n random ints (any bits). */
    static MemorySegment randomInts(Arena arena, long n, long seed) {
        MemorySegment s = arena.allocate(n * 4, 64);
        long x = seed | 1;
        for (long i = 0; i < n; i++) {
            x = xorshift(x);
            s.setAtIndex(JAVA_INT, i, (int) (x >>> 32));
        }
        return s;
    }

    /** Marsaglia's xorshift64: fast enough to fill a GiB in well under a second, never zero from a non-zero seed. */
    private static long xorshift(long x) {
        x ^= x << 13;
        x ^= x >>> 7;
        return x ^ (x << 17);
    }

    /**
     * Checks {@code out = a·x + y} exactly: each element must equal the fused or the unfused result (GPUs may
     * contract to an FMA). Returns null when right, else the first wrong element.
     */
    static String checkSaxpy(float a, MemorySegment x, MemorySegment y, MemorySegment out, long n) {
        for (long i = 0; i < n; i++) {
            float xi = x.getAtIndex(JAVA_FLOAT, i), yi = y.getAtIndex(JAVA_FLOAT, i), v = out.getAtIndex(JAVA_FLOAT, i);
            if (v != Math.fma(a, xi, yi) && v != a * xi + yi) {
                return "element " + i + " is " + v + ", expected " + (a * xi + yi);
            }
        }
        return null;
    }

    /** Byte-for-byte equality; null when equal. */
    static String checkEqual(MemorySegment expected, MemorySegment actual, long bytes) {
        long m = expected.asSlice(0, bytes).mismatch(actual.asSlice(0, bytes));
        return m < 0 ? null : "first difference at byte " + m + " of " + bytes;
    }

    /** The exact (double) sum of n floats. */
    static double sum(MemorySegment x, long n) {
        double s = 0;
        for (long i = 0; i < n; i++) s += x.getAtIndex(JAVA_FLOAT, i);
        return s;
    }

    /** A float sum over n elements agrees with the double reference within float rounding; null when it does. */
    static String checkSum(double reference, float gpu, long n) {
        double tol = Math.max(1e-5, 4e-7 * Math.log(n) / Math.log(2)) * Math.abs(reference);
        return Math.abs(gpu - reference) <= tol ? null
                : "sum is " + gpu + ", CPU reference " + reference + " (tolerance " + tol + ")";
    }
}

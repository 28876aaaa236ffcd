package io.jkompute.cuda.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class ArrayLayoutTest {

    @Test
    void contiguousStridesAreRowMajor() {
        ArrayLayout l = ArrayLayout.contiguous(2, 3, 4);
        assertArrayEquals(new long[] {12, 4, 1}, l.strides());
        assertEquals(24, l.size());
        assertEquals(24, l.extent());
        assertTrue(l.isContiguous());
    }

    @Test
    void indexDropsTheDimensionAndCountsFromTheEnd() {
        ArrayLayout l = ArrayLayout.contiguous(2, 3, 4).index(0, -1);
        assertArrayEquals(new long[] {3, 4}, l.shape());
        assertArrayEquals(new long[] {4, 1}, l.strides());
        assertEquals(12, l.offset());
        ArrayLayout col = ArrayLayout.contiguous(3, 4).index(1, 2);
        assertArrayEquals(new long[] {3}, col.shape());
        assertArrayEquals(new long[] {4}, col.strides());
        assertEquals(2, col.offset());
        assertFalse(col.isContiguous());
        var e = assertThrows(IndexOutOfBoundsException.class, () -> ArrayLayout.contiguous(3).index(0, 3));
        assertEquals("index 3 is out of bounds for axis 0 with size 3", e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> ArrayLayout.contiguous(3).index(0, -4));
    }

    @Test
    void slicesFollowPythonRules() {
        ArrayLayout l = ArrayLayout.contiguous(10);
        ArrayLayout s = l.slice(0, 2, 9, 3); // 2, 5, 8
        assertArrayEquals(new long[] {3}, s.shape());
        assertArrayEquals(new long[] {3}, s.strides());
        assertEquals(2, s.offset());
        ArrayLayout neg = l.slice(0, -3, ArrayLayout.NONE, 1); // 7, 8, 9
        assertArrayEquals(new long[] {3}, neg.shape());
        assertEquals(7, neg.offset());
        ArrayLayout clipped = l.slice(0, -100, 100, 1);
        assertArrayEquals(new long[] {10}, clipped.shape());
        assertEquals(0, clipped.offset());
        ArrayLayout empty = l.slice(0, 5, 2, 1);
        assertArrayEquals(new long[] {0}, empty.shape());
        assertEquals(0, empty.size());
        ArrayLayout everyOther = l.slice(0, ArrayLayout.NONE, ArrayLayout.NONE, 2); // 0, 2, 4, 6, 8
        assertArrayEquals(new long[] {5}, everyOther.shape());
        assertThrows(IllegalArgumentException.class, () -> l.slice(0, 0, 5, 0));
        assertEquals(5, l.slice(0, 5, 0, -1).shape()[0]); // a[5:0:-1]: negative steps walk backwards
        assertThrows(IndexOutOfBoundsException.class, () -> l.slice(1, 0, 5, 1));
    }

    @Test
    void slicingRowsOfAMatrixKeepsItContiguousButColumnsDoNot() {
        ArrayLayout m = ArrayLayout.contiguous(4, 6);
        ArrayLayout rows = m.slice(0, 1, 3, 1);
        assertTrue(rows.isContiguous());
        assertEquals(6, rows.offset());
        ArrayLayout cols = m.slice(1, 1, 3, 1);
        assertFalse(cols.isContiguous());
        assertEquals(21, cols.extent()); // last element (3, 2) sits at 1 + 3*6 + 1
    }

    @Test
    void reshapeInfersOneDimensionAndRejectsWrongSizes() {
        ArrayLayout l = ArrayLayout.contiguous(2, 3, 4);
        assertArrayEquals(new long[] {6, 4}, l.reshape(-1, 4).shape());
        assertArrayEquals(new long[] {24}, l.reshape(24).shape());
        var e = assertThrows(IllegalArgumentException.class, () -> l.reshape(5, 5));
        assertEquals("cannot reshape array of size 24 into shape [5, 5]", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> l.reshape(-1, -1));
        assertThrows(IllegalArgumentException.class, () -> l.reshape(-1, 5));
        var view = l.slice(2, 0, 2, 1);
        assertThrows(IllegalStateException.class, () -> view.reshape(12));
        ArrayLayout offsetRows = ArrayLayout.contiguous(4, 6).index(0, 2).reshape(2, 3);
        assertEquals(12, offsetRows.offset());
    }

    @Test
    void rejectsNegativeDimensionsAndStridesReachingBeforeTheMemory() {
        assertThrows(IllegalArgumentException.class, () -> ArrayLayout.contiguous(2, -1));
        assertEquals(0, new ArrayLayout(new long[] {3}, new long[] {-1}, 2).lowest()); // a [::-1] view
        assertThrows(IllegalArgumentException.class, () -> new ArrayLayout(new long[] {3}, new long[] {-1}, 1));
        assertEquals(1, new ArrayLayout(new long[] {3}, new long[] {0}, 0).extent()); // a broadcast view
        assertThrows(IllegalArgumentException.class, () -> new ArrayLayout(new long[] {3}, new long[] {1, 1}, 0));
    }

    @Test
    void contiguousCopyIsOneRow() {
        var plan = ArrayLayout.copyPlan(ArrayLayout.contiguous(3, 4), ArrayLayout.contiguous(3, 4), 4);
        assertEquals(1, plan.count());
        assertEquals(48, plan.width());
        assertEquals(1, plan.height());
    }

    @Test
    void columnSliceCopyIsOne2DCopy() {
        ArrayLayout src = ArrayLayout.contiguous(5, 8).slice(1, 2, 5, 1); // 5 rows of 3
        var plan = ArrayLayout.copyPlan(src, ArrayLayout.contiguous(5, 3), 4);
        assertEquals(1, plan.count());
        assertEquals(12, plan.width());
        assertEquals(5, plan.height());
        assertEquals(32, plan.srcPitch());
        assertEquals(12, plan.dstPitch());
        assertEquals(8, plan.srcBase());
    }

    /** Every copy plan, replayed on host bytes, must move exactly the elements a naive element loop moves. */
    @Test
    void copyPlansMatchAnElementByElementCopyOnRandomViews() {
        Random rnd = new Random(42);
        for (int trial = 0; trial < 500; trial++) {
            int nd = 1 + rnd.nextInt(4);
            long[] shape = new long[nd];
            for (int i = 0; i < nd; i++) shape[i] = 1 + rnd.nextInt(5);
            ArrayLayout base = ArrayLayout.contiguous(shape);
            ArrayLayout src = base;
            for (int d = 0; d < nd; d++) {
                long n = shape[d];
                long start = rnd.nextInt((int) n), step = 1 + rnd.nextInt(2);
                src = src.slice(d, start, n, step);
            }
            int elem = new int[] {1, 2, 4, 8, 16}[rnd.nextInt(5)];
            // destination: either compact or a view into a larger buffer
            ArrayLayout dst;
            long[] big = src.shape();
            for (int i = 0; i < big.length; i++) big[i] = big[i] * 2 + 1;
            if (rnd.nextBoolean()) {
                dst = ArrayLayout.contiguous(src.shape());
            } else {
                dst = ArrayLayout.contiguous(big);
                for (int d = 0; d < nd; d++) dst = dst.slice(d, 1, 1 + 2 * src.shape()[d], 2);
            }
            byte[] from = new byte[(int) (base.size() * elem)];
            rnd.nextBytes(from);
            byte[] expect = new byte[(int) (Math.max(dst.extent(), 1) * elem)];
            byte[] actual = expect.clone();
            naiveCopy(src, dst, elem, from, expect);
            var plan = ArrayLayout.copyPlan(src, dst, elem);
            plan.forEach((so, dof) -> {
                for (long r = 0; r < plan.height(); r++) {
                    System.arraycopy(from, (int) (so + r * plan.srcPitch()), actual, (int) (dof + r * plan.dstPitch()), (int) plan.width());
                }
            });
            assertArrayEquals(expect, actual, "trial " + trial + ": " + src + " -> " + dst);
        }
    }

    private static void naiveCopy(ArrayLayout src, ArrayLayout dst, int elem, byte[] from, byte[] to) {
        long[] shape = src.shape(), ss = src.strides(), ds = dst.strides();
        long n = src.size();
        long[] idx = new long[shape.length];
        for (long c = 0; c < n; c++) {
            long so = src.offset(), d = dst.offset();
            for (int i = 0; i < shape.length; i++) {
                so += idx[i] * ss[i];
                d += idx[i] * ds[i];
            }
            System.arraycopy(from, (int) (so * elem), to, (int) (d * elem), elem);
            for (int i = shape.length - 1; i >= 0; i--) {
                if (++idx[i] < shape[i]) break;
                idx[i] = 0;
            }
        }
    }
}

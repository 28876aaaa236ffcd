package io.jkompute.cuda.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.cuda.DType;
import java.util.IdentityHashMap;
import org.junit.jupiter.api.Test;

/** The plans' choices, checked without a GPU: which kernel shape, which merged dimensions, which cache key. */
class KernelPlanTest {
    private static ElementwiseKernel.Plan plan(Node root, ArrayLayout out, Object[] refs, ArrayLayout[] ls) {
        IdentityHashMap<Object, ElementwiseKernel.Operand> ops = new IdentityHashMap<>();
        for (int i = 0; i < refs.length; i++) ops.put(refs[i], new ElementwiseKernel.Operand(ls[i], 0));
        return ElementwiseKernel.plan(root, root.dtype(), new ElementwiseKernel.Operand(out, 0), ops);
    }

    @Test
    void fortranOperandsOfAFortranOutputAreDense() {
        Object a = new Object(), b = new Object();
        ArrayLayout f = ArrayLayout.fortran(30, 40);
        Node e = Node.binary(Node.BinaryOp.ADD, new Node.Input(a, DType.FLOAT32, f.shape()), new Node.Input(b, DType.FLOAT32, f.shape()));
        assertTrue(plan(e, f, new Object[] {a, b}, new ArrayLayout[] {f, f}).dense());
        // a C output with F inputs is a transpose: strided
        assertFalse(plan(e, ArrayLayout.contiguous(30, 40), new Object[] {a, b}, new ArrayLayout[] {f, f}).dense());
    }

    @Test
    void broadcastRowKeepsTwoDimensionsAndContiguousDimensionsMerge() {
        Object a = new Object(), r = new Object();
        ArrayLayout m = ArrayLayout.contiguous(8, 16, 32);
        Node e = Node.binary(Node.BinaryOp.MUL, new Node.Input(a, DType.FLOAT64, m.shape()), new Node.Input(r, DType.FLOAT64, new long[] {32}));
        ElementwiseKernel.Plan p = plan(e, m, new Object[] {a, r}, new ArrayLayout[] {m, ArrayLayout.contiguous(32)});
        assertFalse(p.dense());
        // (8, 16) merge into 128 rows for every operand (the row's stride is 0 in both); 32 stays
        assertArrayEquals(new long[] {128, 32}, p.shape());
        assertArrayEquals(new long[] {0, 1}, p.strides()[2]);
    }

    @Test
    void keysNameTypesAndLayoutButNotScalarValues() {
        Object a = new Object();
        ArrayLayout l = ArrayLayout.contiguous(1024);
        Node x = new Node.Input(a, DType.FLOAT32, l.shape());
        String k2 = plan(Node.binary(Node.BinaryOp.MUL, x, Node.Scalar.of(2L)), l, new Object[] {a}, new ArrayLayout[] {l}).key();
        String k3 = plan(Node.binary(Node.BinaryOp.MUL, x, Node.Scalar.of(3L)), l, new Object[] {a}, new ArrayLayout[] {l}).key();
        assertEquals(k2, k3);
        Node x16 = new Node.Input(a, DType.FLOAT16, l.shape());
        assertNotEquals(k2, plan(Node.binary(Node.BinaryOp.MUL, x16, Node.Scalar.of(2L)), l, new Object[] {a}, new ArrayLayout[] {l}).key());
        ArrayLayout rev = l.slice(0, ArrayLayout.NONE, ArrayLayout.NONE, -1);
        assertNotEquals(k2, plan(Node.binary(Node.BinaryOp.MUL, x, Node.Scalar.of(2L)), l, new Object[] {a}, new ArrayLayout[] {rev}).key());
    }

    @Test
    void reductionPlansFollowTheMemory() {
        ArrayLayout m = ArrayLayout.contiguous(1000, 500);
        ReductionKernel.Plan rows = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, m, new int[] {1}, false, 0, 132);
        assertTrue(rows.rows());
        assertEquals(1000, rows.m());
        assertEquals(500, rows.k());
        // many short rows go one per warp; few rows, or long ones, one per block
        assertFalse(rows.warpRows());
        assertTrue(ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, ArrayLayout.contiguous(ReductionKernel.WARP_ROW_MIN_ROWS, 500), new int[] {1}, false, 0, 132).warpRows());
        ReductionKernel.Plan longRows = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, ArrayLayout.contiguous(2000, ReductionKernel.WARP_ROW_MAX + 1), new int[] {1}, false, 0, 132);
        assertTrue(longRows.rows());
        assertEquals(1, longRows.splits());
        assertFalse(longRows.warpRows());
        ReductionKernel.Plan cols = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, m, new int[] {0}, true, 0, 132);
        assertFalse(cols.rows());
        assertArrayEquals(new long[] {1, 500}, cols.outShape());
        // the transposed view reduces along its last axis with stride 500: columns again
        assertFalse(ReductionKernel.plan(ReductionKernel.Op.MAX, DType.FLOAT32, m.transpose(), new int[] {1}, false, 0, 132).rows());
        // one long row is split over many blocks, each chunk a whole number of 16-byte loads
        ReductionKernel.Plan full = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, ArrayLayout.contiguous(1L << 28), new int[0], false, 0, 132);
        // one wave (at most BLOCKS_PER_SM resident blocks on each of the 132 SMs), each block's share whole passes of
        // its unrolled loop: 2^28 / 264 = 1,016,809 rounded up to 512 threads x 8 loads x 4 floats is 1,032,192
        assertEquals(1_032_192, full.chunk());
        assertEquals(261, full.splits());
        assertTrue(full.lastBlockFinishes(), "the last block combines the partials: no second kernel");
        assertFalse(full.warpRows());
        // a shorter row keeps one wave of blocks: its shares are fewer than eight passes, so only whole vectors
        ReductionKernel.Plan mid = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, ArrayLayout.contiguous(10_000_000), new int[0], false, 0, 132);
        assertEquals(264, mid.splits());
        assertEquals(37_880, mid.chunk());
        assertEquals(0, full.chunk() % full.vector());
        assertTrue(full.chunk() * full.splits() >= full.k());
        assertThrows(IllegalArgumentException.class, () -> ReductionKernel.plan(ReductionKernel.Op.ARGMAX, DType.FLOAT32, m, new int[] {0, 1}, false, 0, 132));
        assertThrows(IllegalArgumentException.class, () -> ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, m, new int[] {2}, false, 0, 132));
        assertThrows(IllegalArgumentException.class, () -> ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, m, new int[] {1, -1}, false, 0, 132));
    }
}

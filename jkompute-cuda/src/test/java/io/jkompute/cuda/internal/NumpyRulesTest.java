package io.jkompute.cuda.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jkompute.cuda.DType;
import io.jkompute.cuda.internal.Promotion.ScalarKind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The shape, slicing, reshape and type-promotion rules against numpy 2's own answers (fixtures written by
 * {@code numpy/gen_fixtures.py} next to this test's resources). No GPU needed.
 */
class NumpyRulesTest {
    static List<String> fixture(String name) throws IOException {
        try (InputStream in = NumpyRulesTest.class.getResourceAsStream("/io/jkompute/cuda/numpy/" + name)) {
            assertNotNull(in, "missing fixture " + name);
            List<String> out = new ArrayList<>();
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!l.isBlank() && !l.startsWith("#")) out.add(l);
            }
            return out;
        }
    }

    static DType dtype(String numpyName) {
        return DType.valueOf(numpyName.toUpperCase(Locale.ROOT));
    }

    @Test
    void resultTypeOfEveryPairMatchesNumpy() throws IOException {
        List<String> rows = fixture("promotion.txt");
        assertEquals(144, rows.size());
        for (String r : rows) {
            String[] f = r.split(" ");
            assertEquals(dtype(f[2]), Promotion.result(dtype(f[0]), dtype(f[1])), r);
        }
    }

    @Test
    void weakScalarsFollowNep50() throws IOException {
        for (String r : fixture("weak.txt")) {
            String[] f = r.split(" ");
            DType a = dtype(f[0]);
            assertEquals(dtype(f[2]), Promotion.withScalar(a, ScalarKind.valueOf(f[1])), r);
            // and through the expression builder, as a.add(scalar) computes it
            Node.Scalar s = f[1].equals("BOOL") ? Node.Scalar.of(true) : f[1].equals("INT") ? Node.Scalar.of(1L) : Node.Scalar.of(1.5);
            Node e = Node.binary(Node.BinaryOp.ADD, new Node.Input(new Object(), a, new long[] {2}), s);
            assertEquals(dtype(f[2]), e.dtype(), r);
        }
    }

    @Test
    void loopAndAccumulatorTypesMatchNumpy() throws IOException {
        for (String r : fixture("loops.txt")) {
            String[] f = r.split(" ");
            DType a = dtype(f[0]);
            Node in = new Node.Input(new Object(), a, new long[] {2});
            assertEquals(dtype(f[1]), Node.unary(Node.UnaryOp.EXP, in).dtype(), "exp " + r);
            assertEquals(dtype(f[2]), Node.binary(Node.BinaryOp.DIV, in, in).dtype(), "divide " + r);
            assertEquals(dtype(f[3]), ReductionKernel.resultType(ReductionKernel.Op.SUM, a), "sum " + r);
            assertEquals(dtype(f[4]), ReductionKernel.resultType(ReductionKernel.Op.MEAN, a), "mean " + r);
        }
    }

    @Test
    void integerScalarThatDoesNotFitIsAnErrorLikeNumpysOverflowError() {
        Node in = new Node.Input(new Object(), DType.INT8, new long[] {3});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Node.binary(Node.BinaryOp.ADD, in, Node.Scalar.of(300L)));
        assertEquals("integer 300 is out of bounds for int8", e.getMessage());
        assertEquals(DType.INT8, Node.binary(Node.BinaryOp.ADD, in, Node.Scalar.of(127L)).dtype());
        assertThrows(IllegalArgumentException.class, () -> Node.unary(Node.UnaryOp.NEG, new Node.Input(new Object(), DType.BOOL, new long[] {1})));
        // comparisons give bool, computed in the promoted type: int8 > 2.5 compares in float64
        Node.Binary gt = (Node.Binary) Node.binary(Node.BinaryOp.GT, in, Node.Scalar.of(2.5));
        assertEquals(DType.BOOL, gt.dtype());
        assertEquals(DType.FLOAT64, gt.loop());
    }

    @Test
    void whereAndClipPromoteLikeNumpy() {
        Node c = new Node.Input(new Object(), DType.BOOL, new long[] {3});
        Node i8 = new Node.Input(new Object(), DType.INT8, new long[] {3});
        assertEquals(DType.INT8, Node.where(c, i8, Node.Scalar.of(2L)).dtype());        // np.where(c, int8, 2)
        assertEquals(DType.FLOAT64, Node.where(c, Node.Scalar.of(1L), Node.Scalar.of(2.0)).dtype());
        Node clip = Node.binary(Node.BinaryOp.MIN, Node.binary(Node.BinaryOp.MAX, i8, Node.Scalar.of(0L)), Node.Scalar.of(1.5));
        assertEquals(DType.FLOAT64, clip.dtype());                                     // np.clip(int8, 0, 1.5)
    }

    @Test
    void broadcastingShapes() {
        assertArrayEquals(new long[] {8, 7, 6, 5}, ArrayLayout.broadcastShapes(new long[] {8, 1, 6, 1}, new long[] {7, 1, 5}));
        assertArrayEquals(new long[] {3}, ArrayLayout.broadcastShapes(new long[] {3}, new long[0]));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ArrayLayout.broadcastShapes(new long[] {3}, new long[] {4}));
        assertEquals("operands could not be broadcast together with shapes [3] [4]", e.getMessage());
        ArrayLayout row = ArrayLayout.contiguous(5).broadcastTo(3, 5);
        assertArrayEquals(new long[] {0, 1}, row.strides());
    }

    @Test
    void negativeStepSlicesMatchNumpy() throws IOException {
        for (String r : fixture("slices.txt")) {
            String[] p = r.split("\\|");
            long[] base = longs(p[0]);
            String[] s = p[1].trim().split(" ");
            ArrayLayout l = ArrayLayout.contiguous(base).slice(0, bound(s[0]), bound(s[1]), Long.parseLong(s[2]));
            assertArrayEquals(longs(p[2]), l.shape(), r);
            assertArrayEquals(longs(p[3]), l.strides(), r);
            assertEquals(Long.parseLong(p[4].trim()), l.offset(), r);
        }
    }

    @Test
    void reshapeIsAViewExactlyWhenNumpysIs() throws IOException {
        ArrayLayout base = ArrayLayout.contiguous(4, 6, 5);
        int views = 0;
        for (String r : fixture("reshape.txt")) {
            String[] p = r.split("\\|");
            ArrayLayout v = switch (p[0].trim()) {
                case "T" -> base.transpose();
                case "T01" -> base.permute(1, 0, 2);
                case "s1" -> base.slice(1, ArrayLayout.NONE, ArrayLayout.NONE, 2);
                case "s2" -> base.slice(2, ArrayLayout.NONE, ArrayLayout.NONE, -1);
                case "s3" -> base.slice(0, 1, 3, 1);
                case "c" -> base;
                case "f" -> ArrayLayout.fortran(4, 6, 5);
                case "s4" -> base.slice(1, 1, 5, 1);
                case "s5" -> base.slice(0, ArrayLayout.NONE, ArrayLayout.NONE, 2);
                default -> throw new IllegalStateException(p[0]);
            };
            char order = p[1].trim().charAt(0);
            ArrayLayout got = v.reshapeView(order, longs(p[2]));
            if (p[3].trim().equals("1")) {
                views++;
                assertNotNull(got, "numpy makes a view: " + r);
                long[] want = longs(p[4]), shape = got.shape(), st = got.strides();
                for (int i = 0; i < shape.length; i++) if (shape[i] > 1) assertEquals(want[i], st[i], "stride " + i + " of " + r);
            } else {
                assertNull(got, "numpy copies: " + r);
            }
        }
        assertEquals(37, views);
    }

    @Test
    void fortranLayouts() {
        ArrayLayout f = ArrayLayout.fortran(2, 3, 4);
        assertArrayEquals(new long[] {1, 2, 6}, f.strides());
        assertEquals(true, f.isFortranContiguous());
        assertEquals(false, f.isContiguous());
        assertEquals(true, f.transpose().isContiguous());
        assertThrows(IllegalArgumentException.class, () -> ArrayLayout.of('K', 2));
    }

    @Test
    void negativeStridesNeverReachBeforeTheMemory() {
        ArrayLayout r = ArrayLayout.contiguous(10).slice(0, ArrayLayout.NONE, ArrayLayout.NONE, -1);
        assertEquals(9, r.offset());
        assertEquals(0, r.lowest());
        assertEquals(10, r.extent());
        assertThrows(IllegalArgumentException.class, () -> new ArrayLayout(new long[] {3}, new long[] {-1}, 1));
    }

    private static long bound(String s) {
        return s.equals("N") ? ArrayLayout.NONE : Long.parseLong(s);
    }

    static long[] longs(String s) {
        s = s.trim();
        if (s.isEmpty()) return new long[0];
        return Arrays.stream(s.split(" ")).mapToLong(Long::parseLong).toArray();
    }
}

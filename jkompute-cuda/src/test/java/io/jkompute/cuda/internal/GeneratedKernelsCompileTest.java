package io.jkompute.cuda.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jkompute.cuda.DType;
import io.jkompute.cuda.internal.Node.BinaryOp;
import io.jkompute.cuda.internal.Node.UnaryOp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The CUDA C the code generators write, compiled to PTX for sm_90 with {@code nvcc} (no GPU needed; skipped where
 * no nvcc is installed), and the plans' choices (dense vs strided, vector width, rows vs columns) checked.
 */
class GeneratedKernelsCompileTest {
    private static Node in(Object ref, DType t, long... shape) {
        return new Node.Input(ref, t, shape);
    }

    private static ElementwiseKernel.Plan plan(Node root, ArrayLayout out, long outPtr, Object[] refs, ArrayLayout[] layouts, long[] ptrs) {
        IdentityHashMap<Object, ElementwiseKernel.Operand> ops = new IdentityHashMap<>();
        for (int i = 0; i < refs.length; i++) ops.put(refs[i], new ElementwiseKernel.Operand(layouts[i], ptrs[i]));
        return ElementwiseKernel.plan(root, root.dtype(), new ElementwiseKernel.Operand(out, outPtr), ops);
    }

    static List<String> sources() {
        List<String> out = new ArrayList<>();
        Object a = new Object(), b = new Object(), c = new Object();
        long n = 1 << 20;
        ArrayLayout flat = ArrayLayout.contiguous(n);
        // saxpy-like and the 5-op chain of the benchmark: dense, 4 floats per 16-byte load
        Node saxpy = Node.binary(BinaryOp.ADD, Node.binary(BinaryOp.MUL, in(a, DType.FLOAT32, n), Node.Scalar.of(2.0)), in(b, DType.FLOAT32, n));
        ElementwiseKernel.Plan p = plan(saxpy, flat, 256, new Object[] {a, b}, new ArrayLayout[] {flat, flat}, new long[] {0, 512});
        assertTrue(p.dense());
        assertEquals(4, p.vector());
        out.add(p.source());
        Node five = Node.unary(UnaryOp.SQRT, Node.unary(UnaryOp.ABS, Node.unary(UnaryOp.SIN,
                Node.binary(BinaryOp.ADD, Node.binary(BinaryOp.MUL, in(a, DType.FLOAT32, n), Node.Scalar.of(2.0)), in(b, DType.FLOAT32, n)))));
        out.add(plan(five, flat, 0, new Object[] {a, b}, new ArrayLayout[] {flat, flat}, new long[] {0, 0}).source());
        // misaligned pointer: scalar loads
        ElementwiseKernel.Plan mis = plan(saxpy, flat, 4, new Object[] {a, b}, new ArrayLayout[] {flat, flat}, new long[] {0, 0});
        assertEquals(1, mis.vector());
        out.add(mis.source());
        // every dtype through arithmetic, comparison, where, casts
        for (DType t : new DType[] {DType.BOOL, DType.INT8, DType.UINT8, DType.INT16, DType.UINT16, DType.INT32, DType.UINT32,
                DType.INT64, DType.UINT64, DType.FLOAT16, DType.BFLOAT16, DType.FLOAT32, DType.FLOAT64}) {
            Node x = in(a, t, 8), y = in(b, t, 8);
            Node e = t.isBool() ? Node.binary(BinaryOp.OR, Node.binary(BinaryOp.MUL, x, y), Node.unary(UnaryOp.NOT, x))
                    : Node.where(Node.binary(BinaryOp.GT, x, y), Node.binary(BinaryOp.POW, Node.unary(UnaryOp.ABS, x), Node.Scalar.of(2L)),
                    Node.binary(BinaryOp.MIN, Node.binary(BinaryOp.DIV, x, Node.cast(y, DType.FLOAT32)), Node.unary(UnaryOp.EXP, y)));
            ArrayLayout l = ArrayLayout.contiguous(8);
            out.add(plan(e, l, 0, new Object[] {a, b}, new ArrayLayout[] {l, l}, new long[] {0, 0}).source());
        }
        // strided: a row broadcast over a [::-1] view of an F-order matrix
        ArrayLayout m = ArrayLayout.fortran(64, 32).slice(0, ArrayLayout.NONE, ArrayLayout.NONE, -1);
        ArrayLayout row = ArrayLayout.contiguous(32);
        Node br = Node.binary(BinaryOp.SUB, in(a, DType.FLOAT64, 64, 32), in(c, DType.FLOAT16, 32));
        ElementwiseKernel.Plan sp = plan(br, ArrayLayout.contiguous(64, 32), 0, new Object[] {a, c}, new ArrayLayout[] {m, row}, new long[] {0, 0});
        assertFalse(sp.dense());
        out.add(sp.source());
        // reductions: full (rows, vectorised, split), along the last axis, along axis 0 (columns), arg and boolean ones
        ArrayLayout big = ArrayLayout.contiguous(1 << 24);
        ReductionKernel.Plan full = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, big, new int[0], false, 0, 132);
        assertTrue(full.rows());
        assertEquals(4, full.vector());
        assertTrue(full.splits() > 1);
        out.add(full.source());
        ArrayLayout mat = ArrayLayout.contiguous(4096, 4096);
        ReductionKernel.Plan cols = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, mat, new int[] {0}, false, 0, 132);
        assertFalse(cols.rows());
        out.add(cols.source());
        // short rows: one warp per row, for order-free ops (four accumulators) and arg ops (one chain)
        ReductionKernel.Plan warpSum = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, mat, new int[] {-1}, false, 0, 132);
        assertTrue(warpSum.warpRows());
        out.add(warpSum.source());
        out.add(ReductionKernel.plan(ReductionKernel.Op.ARGMAX, DType.FLOAT32, mat, new int[] {-1}, false, 0, 132).source());
        // long rows, one block each, float64 in 2-element loads
        ReductionKernel.Plan longRows = ReductionKernel.plan(ReductionKernel.Op.MAX, DType.FLOAT64, ArrayLayout.contiguous(1024, 20000), new int[] {1}, false, 0, 132);
        assertTrue(longRows.rows());
        assertFalse(longRows.warpRows());
        out.add(longRows.source());
        out.add(ReductionKernel.plan(ReductionKernel.Op.MEAN, DType.INT16, mat, new int[] {1}, true, 0, 132).source());
        out.add(ReductionKernel.plan(ReductionKernel.Op.ARGMAX, DType.FLOAT16, mat, new int[0], false, 0, 132).source());
        out.add(ReductionKernel.plan(ReductionKernel.Op.ARGMIN, DType.INT64, mat.transpose(), new int[] {1}, false, 0, 132).source());
        out.add(ReductionKernel.plan(ReductionKernel.Op.ANY, DType.BOOL, ArrayLayout.contiguous(3, 5, 7), new int[] {0, 2}, false, 0, 132).source());
        out.add(ReductionKernel.plan(ReductionKernel.Op.MIN, DType.UINT8, ArrayLayout.contiguous(3, 5, 7), new int[] {2}, false, 0, 132).source());
        out.add(ReductionKernel.plan(ReductionKernel.Op.PROD, DType.BFLOAT16, ArrayLayout.contiguous(100, 7), new int[] {0}, false, 0, 132).source());
        return out;
    }

    /**
     * The configurations jkompute-bench's ReductionSweep times (the same lists: load instruction x loads x (threads,
     * blocks per SM) x row kernel, and four more), as tunings.
     */
    static List<ReductionTuning> sweepTunings() {
        List<ReductionTuning> c = new ArrayList<>();
        int[][] grids = {{512, 2}, {256, 4}, {256, 8}};
        Object[][] rowKinds = {{ReductionTuning.RowMode.AUTO, 256}, {ReductionTuning.RowMode.BLOCK, 256}, {ReductionTuning.RowMode.BLOCK, 128}};
        for (ReductionTuning.Load load : new ReductionTuning.Load[] {ReductionTuning.Load.DEFAULT, ReductionTuning.Load.NC_NA}) {
            for (int loads : new int[] {8, 4}) {
                for (int[] g : grids) {
                    for (Object[] r : rowKinds) c.add(new ReductionTuning(g[0], g[1], loads, (ReductionTuning.RowMode) r[0], (Integer) r[1], load));
                }
            }
        }
        c.add(new ReductionTuning(256, 4, 4, ReductionTuning.RowMode.AUTO, 256, ReductionTuning.Load.CS));
        c.add(new ReductionTuning(512, 2, 8, ReductionTuning.RowMode.BLOCK, 256, ReductionTuning.Load.CS));
        c.add(new ReductionTuning(256, 4, 4, ReductionTuning.RowMode.BLOCK, 256, ReductionTuning.Load.NC));
        c.add(new ReductionTuning(256, 8, 2, ReductionTuning.RowMode.AUTO, 256, ReductionTuning.Load.DEFAULT));
        return c;
    }

    /** The sum-all and sum(-1) kernels of every swept configuration, plus other types and ops through each load kind. */
    static List<String> tunedSources() {
        List<String> out = new ArrayList<>();
        ArrayLayout big = ArrayLayout.contiguous(1L << 28), mat = ArrayLayout.contiguous(65536, 4096);
        java.util.Set<String> keys = new java.util.HashSet<>();
        List<ReductionTuning> tunings = sweepTunings();
        assertEquals(40, tunings.size());
        assertEquals(ReductionTuning.DEFAULTS, tunings.get(0), "the sweep starts from the defaults");
        for (ReductionTuning t : tunings) {
            ReductionKernel.Plan all = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, big, new int[0], false, 0, 132, t);
            ReductionKernel.Plan rows = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, mat, new int[] {-1}, false, 0, 132, t);
            assertTrue(keys.add(all.key()), "each configuration has its own kernel key: " + all.key());
            assertTrue(keys.add(rows.key()), "each configuration has its own kernel key: " + rows.key());
            long pass = (long) t.threads() * t.loads() * 4;
            assertEquals(0, all.chunk() % pass, "a split block's share is whole passes of its unrolled loop");
            assertEquals(((1L << 28) + all.chunk() - 1) / all.chunk(), all.splits());
            assertTrue(all.splits() <= (long) t.blocksPerSm() * 132 && all.splits() > (long) t.blocksPerSm() * 132 * 9 / 10,
                    "the split grid is one wave of blocksPerSm blocks per SM: " + all.splits());
            assertEquals(t.threads(), all.threads());
            assertEquals(t.rowMode() != ReductionTuning.RowMode.BLOCK, rows.warpRows());
            assertEquals(rows.warpRows() ? t.threads() : t.rowThreads(), rows.threads());
            out.add(all.source());
            out.add(rows.source());
        }
        for (ReductionTuning.Load load : ReductionTuning.Load.values()) {
            ReductionTuning t = new ReductionTuning(512, 2, 8, ReductionTuning.RowMode.BLOCK, 128, load);
            out.add(ReductionKernel.plan(ReductionKernel.Op.MAX, DType.FLOAT64, ArrayLayout.contiguous(1024, 20000), new int[] {1}, false, 0, 132, t).source());
            out.add(ReductionKernel.plan(ReductionKernel.Op.ARGMAX, DType.FLOAT16, mat, new int[] {-1}, false, 0, 132, t).source());
            out.add(ReductionKernel.plan(ReductionKernel.Op.MEAN, DType.INT8, mat, new int[] {-1}, false, 0, 132, t).source());
            out.add(ReductionKernel.plan(ReductionKernel.Op.SUM, DType.BFLOAT16, big, new int[0], false, 0, 132,
                    new ReductionTuning(256, 8, 1, ReductionTuning.RowMode.WARP, 256, load)).source());
        }
        // the tunings ReductionTuningGpuTest runs, with its shapes and ops
        ReductionTuning[] gpuTest = {
            new ReductionTuning(512, 2, 8, ReductionTuning.RowMode.BLOCK, 128, ReductionTuning.Load.NC_NA),
            new ReductionTuning(256, 8, 1, ReductionTuning.RowMode.WARP, 256, ReductionTuning.Load.CS),
            new ReductionTuning(256, 4, 3, ReductionTuning.RowMode.AUTO, 512, ReductionTuning.Load.NC),
            new ReductionTuning(128, 16, 16, ReductionTuning.RowMode.BLOCK, 1024, ReductionTuning.Load.DEFAULT),
            new ReductionTuning(256, 8, 1, ReductionTuning.RowMode.WARP, 256, ReductionTuning.Load.CS, 0, ReductionTuning.Finish.LAST),
            new ReductionTuning(256, 4, 3, ReductionTuning.RowMode.AUTO, 512, ReductionTuning.Load.NC, 65536, ReductionTuning.Finish.KERNEL),
            new ReductionTuning(512, 2, 8, ReductionTuning.RowMode.AUTO, 256, ReductionTuning.Load.DEFAULT, 65536, ReductionTuning.Finish.LAST),
            new ReductionTuning(256, 4, 4, ReductionTuning.RowMode.AUTO, 256, ReductionTuning.Load.DEFAULT, 1024, ReductionTuning.Finish.LAST),
        };
        for (ReductionTuning t : gpuTest) {
            ArrayLayout x = ArrayLayout.contiguous(3_000_011), m = ArrayLayout.contiguous(2500, 4096), u = ArrayLayout.contiguous(37, 1001);
            for (ReductionKernel.Op op : new ReductionKernel.Op[] {ReductionKernel.Op.SUM, ReductionKernel.Op.MAX, ReductionKernel.Op.ARGMAX}) {
                out.add(ReductionKernel.plan(op, DType.FLOAT32, x, new int[0], false, 0, 132, t).source());
            }
            out.add(ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, m, new int[] {-1}, false, 0, 132, t).source());
            out.add(ReductionKernel.plan(ReductionKernel.Op.ARGMAX, DType.FLOAT32, m, new int[] {-1}, false, 0, 132, t).source());
            out.add(ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, u, new int[] {-1}, false, 0, 132, t).source());
        }
        // the split-row sweep: fixed-size blocks and the last-block finish, for every type family and op
        keys.clear();
        for (int tile : new int[] {0, 32768, 65536, 131072, 262144, 1048576}) {
            for (ReductionTuning.Finish f : ReductionTuning.Finish.values()) {
                ReductionTuning t = new ReductionTuning(512, 2, 8, ReductionTuning.RowMode.AUTO, 256, ReductionTuning.Load.DEFAULT, tile, f);
                ReductionKernel.Plan all = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, big, new int[0], false, 0, 132, t);
                assertEquals(tile == 0 ? 261 : (int) (((1L << 28) + tile - 1) / tile), all.splits(), "blocks of the split row, tile " + tile);
                assertEquals(f == ReductionTuning.Finish.LAST, all.lastBlockFinishes());
                assertTrue(keys.add(all.key()), "each configuration has its own kernel key: " + all.key());
                out.add(all.source());
            }
        }
        ReductionTuning last = new ReductionTuning(512, 2, 8, ReductionTuning.RowMode.AUTO, 256, ReductionTuning.Load.DEFAULT, 65536, ReductionTuning.Finish.LAST);
        for (ReductionKernel.Op op : new ReductionKernel.Op[] {ReductionKernel.Op.SUM, ReductionKernel.Op.MEAN, ReductionKernel.Op.ARGMIN, ReductionKernel.Op.ALL}) {
            for (DType d : new DType[] {DType.FLOAT64, DType.INT8, DType.UINT64, DType.BFLOAT16}) {
                ReductionKernel.Plan pl = ReductionKernel.plan(op, d, ArrayLayout.contiguous(3, 1_000_003), new int[] {1}, false, 0, 132, last);
                assertTrue(pl.lastBlockFinishes(), op + " " + d);
                out.add(pl.source());
            }
        }
        // a kernel's source does not name its split count, so several plans share one: compile each once
        return new ArrayList<>(new java.util.LinkedHashSet<>(out));
    }

    @Test
    void everySweptReductionCompilesWithNvcc() throws Exception {
        List<String> srcs = tunedSources(); // the plan checks run even without nvcc
        Path nvcc = findNvcc();
        assumeTrue(nvcc != null, "nvcc not installed: generated kernels not compiled here");
        // the load instructions are inline PTX, which nvcc --ptx passes through unchecked: assemble for sm_90 too
        String ptx = compile(nvcc, srcs, true);
        assertTrue(ptx.contains("ld.global.nc.L1::no_allocate.v4.u32"), "the no-allocate load is emitted");
        assertTrue(ptx.contains("ld.global.cs.v4.u32"), "the streaming load is emitted");
        assertTrue(ptx.contains(".maxntid 512, 1, 1"), "512-thread blocks are declared");
    }

    /**
     * The bulk-copy and dynamic-schedule variants jkompute-bench's ReductionSweep times (its {@code bulk} set), as
     * tunings; the first is the default.
     */
    static List<ReductionTuning> variantTunings() {
        ReductionTuning d = ReductionTuning.DEFAULTS;
        ReductionTuning.Copy L = ReductionTuning.Copy.LOADS, B = ReductionTuning.Copy.BULK;
        ReductionTuning.Schedule S = ReductionTuning.Schedule.STATIC, Y = ReductionTuning.Schedule.DYNAMIC;
        ReductionTuning.Finish last = ReductionTuning.Finish.LAST, kernel = ReductionTuning.Finish.KERNEL;
        Object[][] rows = {
            // threads, blocksPerSm, loads, tile, finish, copy, stage, stages, schedule
            {512, 2, 8, 0, last, L, 16384, 2, S},
            {512, 2, 8, 0, last, B, 16384, 2, S},
            {512, 2, 8, 0, last, B, 8192, 4, S},
            {512, 2, 8, 0, last, B, 23552, 2, S},
            {256, 4, 8, 0, last, B, 16384, 2, S},
            {256, 4, 8, 0, last, B, 11264, 4, S},
            {256, 4, 8, 0, last, B, 15360, 3, S},
            {128, 8, 8, 0, last, B, 8192, 3, S},
            {512, 2, 8, 16384, last, L, 16384, 2, Y},
            {512, 2, 8, 32768, last, L, 16384, 2, Y},
            {512, 2, 8, 65536, last, L, 16384, 2, Y},
            {256, 4, 8, 32768, last, L, 16384, 2, Y},
            {512, 2, 8, 65536, last, B, 16384, 2, Y},
            {256, 4, 8, 32768, last, B, 11264, 4, Y},
            {256, 8, 4, 49152, kernel, L, 16384, 2, S},
            {256, 8, 4, 0, last, L, 16384, 2, S},
        };
        List<ReductionTuning> c = new ArrayList<>();
        for (Object[] r : rows) {
            c.add(new ReductionTuning((Integer) r[0], (Integer) r[1], (Integer) r[2], d.rowMode(), d.rowThreads(), d.load(), (Integer) r[3],
                    (ReductionTuning.Finish) r[4], (ReductionTuning.Copy) r[5], (Integer) r[6], (Integer) r[7], (ReductionTuning.Schedule) r[8]));
        }
        return c;
    }

    /** The variants' kernels for the swept sums and for other types, ops and lengths (odd tails, several rows). */
    static List<String> variantSources() {
        List<String> out = new ArrayList<>();
        List<ReductionTuning> tunings = variantTunings();
        assertEquals(ReductionTuning.DEFAULTS, tunings.get(0), "the variants start from the defaults");
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (ReductionTuning t : tunings) {
            for (long n : new long[] {1L << 28, 1L << 26}) {
                ReductionKernel.Plan p = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, ArrayLayout.contiguous(n), new int[0], false, 0, 132, 90, t);
                assertTrue(keys.add(p.key()), "each configuration has its own kernel key: " + p.key());
                assertEquals(t.copy() == ReductionTuning.Copy.BULK, p.bulk(), "bulk copies on sm_90: " + t);
                assertEquals(t.schedule() == ReductionTuning.Schedule.DYNAMIC, p.dynamic(), "dynamic schedule: " + t);
                assertEquals((n + p.chunk() - 1) / p.chunk(), p.splits());
                if (p.dynamic()) {
                    assertEquals(264 * t.blocksPerSm() / 2, p.persistentBlocks(132), "one wave of persistent blocks");
                    assertTrue(p.chunk() >= t.tile() && p.chunk() < t.tile() + (long) t.threads() * t.loads() * 4, "chunks of about tile elements");
                }
                // sm_80 keeps the loads, with the same schedule
                ReductionKernel.Plan old = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, ArrayLayout.contiguous(n), new int[0], false, 0, 108, 80, t);
                assertFalse(old.bulk(), "no bulk copies before sm_90");
                out.add(p.source());
            }
            if (t.copy() == ReductionTuning.Copy.BULK || t.schedule() == ReductionTuning.Schedule.DYNAMIC) {
                ArrayLayout odd = ArrayLayout.contiguous(3_000_011), three = ArrayLayout.contiguous(3, 1_000_003);
                for (ReductionKernel.Op op : new ReductionKernel.Op[] {ReductionKernel.Op.SUM, ReductionKernel.Op.MAX, ReductionKernel.Op.ARGMAX, ReductionKernel.Op.MEAN, ReductionKernel.Op.ALL}) {
                    for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.BFLOAT16, DType.INT8, DType.INT32}) {
                        out.add(ReductionKernel.plan(op, dt, odd, new int[0], false, 0, 132, 90, t).source());
                        out.add(ReductionKernel.plan(op, dt, three, new int[] {1}, false, 0, 132, 90, t).source());
                    }
                }
            }
        }
        // argmin/argmax keep their ordered chain of loads
        ReductionTuning bulk = tunings.get(1);
        assertFalse(ReductionKernel.plan(ReductionKernel.Op.ARGMAX, DType.FLOAT32, ArrayLayout.contiguous(1L << 26), new int[0], false, 0, 132, 90, bulk).bulk());
        // a misaligned start (scalar loads) cannot use the bulk copies
        assertFalse(ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, ArrayLayout.contiguous(1L << 26), new int[0], false, 4, 132, 90, bulk).bulk());
        return new ArrayList<>(new java.util.LinkedHashSet<>(out));
    }

    @Test
    void bulkCopyAndDynamicVariantsCompileAndAssembleForSm90() throws Exception {
        List<String> srcs = variantSources(); // the plan checks run even without nvcc
        Path nvcc = findNvcc();
        assumeTrue(nvcc != null, "nvcc not installed: generated kernels not compiled here");
        assumeTrue(Files.isExecutable(nvcc.resolveSibling("ptxas")), "ptxas not installed: the inline PTX not assembled here");
        // the bulk copies and barriers are inline PTX, which nvcc --ptx passes through unchecked: assembled for sm_90 too
        String ptx = compile(nvcc, srcs, true);
        assertTrue(ptx.contains("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"), "the bulk copy is emitted");
        assertTrue(ptx.contains("mbarrier.try_wait.parity"), "the stage barriers are waited on");
    }

    /**
     * The sources in one translation unit (each in its own namespace), compiled to PTX for sm_90 and, if asked and
     * ptxas is there, assembled. The PTX of a source set that compiled before is kept under target/ by the hash of
     * the sources and the compiler's path, so an unchanged generator costs no second compile (as ccache would).
     */
    private static String compile(Path nvcc, List<String> srcs, boolean assemble) throws Exception {
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < srcs.size(); i++) {
            all.append("namespace k").append(i).append(" {\n").append(srcs.get(i).replace("jk_", "jk" + i + "_")).append("}\n");
        }
        Path ptxas = nvcc.resolveSibling("ptxas");
        assemble &= Files.isExecutable(ptxas);
        java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
        md.update((nvcc + " " + Files.getLastModifiedTime(nvcc) + "\n" + assemble + "\n" + all).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Path cached = Path.of("target", "nvcc-checked", java.util.HexFormat.of().formatHex(md.digest()) + ".ptx");
        if (Files.isRegularFile(cached)) {
            return Files.readString(cached);
        }
        Path dir = Files.createTempDirectory("jk-gen");
        Path cu = dir.resolve("generated.cu");
        Path ptxFile = dir.resolve("g.ptx");
        Files.writeString(cu, all);
        run("nvcc rejected the generated code", cu.toString(),
                nvcc.toString(), "--ptx", "-arch=sm_90", "-std=c++17", "-o", ptxFile.toString(), cu.toString());
        if (assemble) {
            run("ptxas rejected the generated PTX", "", ptxas.toString(), "-arch=sm_90", "-o", dir.resolve("g.cubin").toString(),
                    ptxFile.toString());
        }
        String ptx = Files.readString(ptxFile);
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) Files.delete(f);
        }
        Files.delete(dir);
        Files.createDirectories(cached.getParent());
        Files.writeString(cached, ptx);
        return ptx;
    }

    private static void run(String failure, String context, String... command) throws Exception {
        Process pr = new ProcessBuilder(command).redirectErrorStream(true).start();
        String log = new String(pr.getInputStream().readAllBytes());
        assertTrue(pr.waitFor(240, TimeUnit.SECONDS), command[0] + " timed out");
        assertEquals(0, pr.exitValue(), failure + ":\n" + log + "\n" + context);
    }

    @Test
    void generatedCudaCompilesWithNvcc() throws Exception {
        List<String> srcs = sources(); // the plan checks run even without nvcc
        Path nvcc = findNvcc();
        assumeTrue(nvcc != null, "nvcc not installed: generated kernels not compiled here");
        String ptx = compile(nvcc, srcs, false);
        assertTrue(ptx.contains("ld.global.nc.v4.f32") || ptx.contains("ld.global.v4.f32"), "the dense float32 kernel uses 16-byte loads");
        assertTrue(ptx.contains("shfl.sync.down"), "reductions use warp shuffles");
    }

    static Path findNvcc() {
        for (String p : new String[] {"/usr/local/cuda/bin/nvcc", "/usr/local/bin/nvcc", "/usr/bin/nvcc"}) {
            if (Files.isExecutable(Path.of(p))) return Path.of(p);
        }
        return null;
    }
}

package io.jkompute.cuda.internal;

import io.jkompute.cuda.DType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Generated reductions along any set of axes, numpy's result and accumulator types. The input's kept axes and
 * reduced axes are each merged where contiguous; then one of two kernels:
 * <ul>
 * <li>rows: the reduced elements are contiguous (stride 1), so a block reduces a row (or a slice of one) with
 * 16-byte loads where aligned, several in flight per thread into independent accumulators (order-free operations),
 * then a warp-shuffle tree; a short row (up to {@link #WARP_ROW_MAX} elements, when there are many) goes to one warp
 * instead, combined by shuffles alone; a long row is split over one wave of blocks ({@link #BLOCKS_PER_SM} per SM),
 * each block's share whole passes of its unrolled loop, and the block that finishes last (an atomic ticket per output)
 * combines the partial results in split order, so results do not depend on timing ({@link ReductionTuning} holds
 * the knobs, among them a second kernel for that combine);</li>
 * <li>columns: the reduced elements are strided (e.g. axis 0 of a C array), so a thread reduces one output
 * element and neighbouring threads read neighbouring memory; long columns are split the same way.</li>
 * </ul>
 * Shapes and strides are compiled in; the key names them, the types and the operation.
 */
public final class ReductionKernel {
    private ReductionKernel() {}

    public enum Op { SUM, PROD, MIN, MAX, ARGMIN, ARGMAX, ANY, ALL, MEAN }

    public static final String PASS1 = "jk_reduce", PASS2 = "jk_reduce_final";
    public static final int BLOCK = 256;

    /**
     * @param outShape   the result's shape (kept axes, with 1s for reduced axes when keepdims)
     * @param m          number of outputs
     * @param k          elements reduced into each output
     * @param rows       true: row kernel, false: column kernel
     * @param vector     elements per 16-byte load in the row kernel (1: scalar loads)
     * @param splits     blocks (rows) or grid rows (columns) sharing one output; > 1 needs the second pass
     * @param chunk      reduced elements per split
     */
    public record Plan(Op op, DType in, DType acc, DType out, long[] outShape, long m, long k, boolean rows, int vector,
                       int splits, long chunk, long[] keptShape, long[] keptStrides, long[] redShape, long[] redStrides, String key,
                       ReductionTuning tuning, boolean bulk, boolean dynamic) {
        public String source() {
            return generate(this);
        }

        public boolean arg() {
            return op == Op.ARGMIN || op == Op.ARGMAX;
        }

        /**
         * Many short contiguous rows (at least {@value #WARP_ROW_MIN_ROWS} rows of up to {@value #WARP_ROW_MAX}
         * elements, one split each) are reduced one row per warp: a block-wide combine (two barriers, shared memory)
         * per short row costs more than reading it. Fewer rows keep a block each, so that enough reads are in
         * flight to fill the memory system. Derived from fields the key names, so the key still identifies the kernel.
         */
        public boolean warpRows() {
            if (!rows || splits != 1 || redShape.length > 1 || k > WARP_ROW_MAX) return false;
            return switch (tuning.rowMode()) {
                case AUTO -> m >= WARP_ROW_MIN_ROWS;
                case WARP -> true;
                case BLOCK -> false;
            };
        }

        /**
         * Blocks of a dynamic schedule: one wave ({@code blocksPerSm} per SM, no more than there are chunks), each
         * taking chunks from the counter after the tickets until none is left.
         */
        public int persistentBlocks(int multiprocessors) {
            return (int) Math.max(1, Math.min((long) tuning.blocksPerSm() * multiprocessors, m * splits));
        }

        /** A split row whose last block to finish combines the partial results (no second kernel). */
        public boolean lastBlockFinishes() {
            return rows && splits > 1 && tuning.finish() == ReductionTuning.Finish.LAST;
        }

        /** Threads per pass-1 block: a whole row in one block takes the row knob, everything else the general one. */
        public int threads() {
            return rows && splits == 1 && !warpRows() ? tuning.rowThreads() : tuning.threads();
        }
    }

    /** Longest row reduced by one warp; longer rows get a block (or several) each. */
    public static final long WARP_ROW_MAX = 8192;
    /** Fewest rows reduced one per warp: 2048 warps with four 16-byte loads per lane in flight is 4 MiB of reads. */
    public static final long WARP_ROW_MIN_ROWS = 2048;
    /** Rows of pass 1 per block in the warp-per-row kernel. */
    public static final int WARPS = BLOCK / 32;
    /**
     * Resident pass-1 blocks per SM the split is sized for (and the register cap {@code __launch_bounds__} enforces,
     * 64 per thread): 4 x 256 threads, each with four independent 16-byte loads in flight, is 64 KiB of reads in
     * flight per SM, more than the bandwidth-latency product needs, and the whole grid is one wave (no tail).
     */
    public static final int BLOCKS_PER_SM = 2;

    /** numpy's result dtype of {@code op} over {@code in}. */
    public static DType resultType(Op op, DType in) {
        return switch (op) {
            case SUM, PROD -> Promotion.sumResult(in);
            case MEAN -> Promotion.meanResult(in);
            case MIN, MAX -> in;
            case ARGMIN, ARGMAX -> DType.INT64;
            case ANY, ALL -> DType.BOOL;
        };
    }

    /** The type partial results are kept in (wider than the input where numpy's accuracy needs it). */
    public static DType accType(Op op, DType in) {
        return switch (op) {
            case SUM, PROD -> {
                DType r = Promotion.sumResult(in);
                yield r == DType.FLOAT16 || r == DType.BFLOAT16 ? DType.FLOAT32 : r;
            }
            case MEAN -> in == DType.FLOAT16 || in == DType.BFLOAT16 ? DType.FLOAT32 : Promotion.meanResult(in);
            case MIN, MAX, ARGMIN, ARGMAX -> in.isBool() || (in.isInteger() && in.byteSize() <= 2) ? DType.INT32
                    : in == DType.FLOAT16 || in == DType.BFLOAT16 ? DType.FLOAT32 : in;
            case ANY, ALL -> DType.INT32;
        };
    }

    /**
     * Plans reducing {@code layout} (of {@code in}) along {@code axes} (empty: all axes).
     *
     * @param ptr             the input's first element address (for the alignment check)
     * @param multiprocessors the device's SM count (sizes the grid)
     */
    public static Plan plan(Op op, DType in, ArrayLayout layout, int[] axes, boolean keepDims, long ptr, int multiprocessors) {
        return plan(op, in, layout, axes, keepDims, ptr, multiprocessors, ReductionTuning.current());
    }

    /** As above, with the knobs given rather than read from the system properties. */
    public static Plan plan(Op op, DType in, ArrayLayout layout, int[] axes, boolean keepDims, long ptr, int multiprocessors, ReductionTuning tuning) {
        return plan(op, in, layout, axes, keepDims, ptr, multiprocessors, 0, tuning);
    }

    /**
     * As above, for a device of compute capability {@code capability} (major x 10 + minor, e.g. 90; 0: unknown), which
     * decides whether Hopper's bulk copies may be used.
     */
    public static Plan plan(Op op, DType in, ArrayLayout layout, int[] axes, boolean keepDims, long ptr, int multiprocessors, int capability,
                            ReductionTuning tuning) {
        if (in.isComplex()) throw new UnsupportedOperationException("reductions of complex arrays are not supported");
        int nd = layout.ndim();
        boolean[] red = new boolean[nd];
        if (axes.length == 0) Arrays.fill(red, true);
        for (int a : axes) {
            int x = a < 0 ? a + nd : a;
            if (x < 0 || x >= nd) throw new IllegalArgumentException("axis " + a + " is out of bounds for array of dimension " + nd);
            if (red[x] && axes.length > 0 && count(axes, a, nd) > 1) throw new IllegalArgumentException("duplicate value in 'axis'");
            red[x] = true;
        }
        if ((op == Op.ARGMIN || op == Op.ARGMAX) && axes.length > 1) {
            throw new IllegalArgumentException(op.name().toLowerCase() + " takes one axis or none");
        }
        long[] shape = layout.shape(), strides = layout.strides();
        List<long[]> kept = new ArrayList<>(), reduced = new ArrayList<>();
        List<Long> outShape = new ArrayList<>();
        long m = 1, k = 1;
        for (int d = 0; d < nd; d++) {
            if (red[d]) {
                k *= shape[d];
                if (keepDims) outShape.add(1L);
                addDim(reduced, shape[d], strides[d]);
            } else {
                m *= shape[d];
                outShape.add(shape[d]);
                addDim(kept, shape[d], strides[d]);
            }
        }
        long[] os = outShape.stream().mapToLong(Long::longValue).toArray();
        DType acc = accType(op, in), out = resultType(op, in);
        long[] ks = col(kept, 0), kst = col(kept, 1), rs = col(reduced, 0), rst = col(reduced, 1);
        boolean innerUnit = rs.length == 0 || rst[rs.length - 1] == 1;
        boolean rows = innerUnit && k >= 32;
        int vector = 1, splits;
        long chunk;
        if (rows) {
            if (rs.length <= 1) {
                int v = Math.max(1, 16 / in.byteSize());
                // every row start must be aligned: the pointer and each kept stride
                boolean ok = ptr % ((long) v * in.byteSize()) == 0;
                for (long s : kst) if (s % v != 0) ok = false;
                vector = ok ? v : 1;
            }
            long target = (long) tuning.blocksPerSm() * multiprocessors;
            if (tuning.schedule() == ReductionTuning.Schedule.DYNAMIC && tuning.finish() == ReductionTuning.Finish.LAST && m < target
                    && k >= 2L * (tuning.tile() > 0 ? tuning.tile() : ReductionTuning.DYNAMIC_CHUNK)) {
                // chunks of a fixed size, taken by a wave of persistent blocks from a counter
                long c = tuning.tile() > 0 ? tuning.tile() : ReductionTuning.DYNAMIC_CHUNK;
                splits = (int) Math.max(1, Math.min((k + c - 1) / c, 65535));
            } else if (tuning.tile() > 0 && m < target) {
                // blocks of a fixed size, as many as the row takes: the SMs pick up the next block as one finishes
                splits = (int) Math.max(1, Math.min((k + tuning.tile() - 1) / tuning.tile(), 65535));
            } else {
                splits = (int) Math.max(1, Math.min(Math.min(target / Math.max(1, m), (k + 4095) / 4096), 65535));
            }
            chunk = (k + splits - 1) / splits;
            // a split block's share is whole passes of its unrolled loop (threads x loads x vector elements), so no
            // block but the last runs the slower remainder loop: worth 2-3 % of a full sum at 1 GiB on an H200. Only
            // where a share is many passes long, so that rounding up costs few blocks
            long pass = (long) tuning.threads() * (op == Op.ARGMIN || op == Op.ARGMAX ? 1 : tuning.loads()) * vector;
            if (splits == 1 || chunk < 8 * pass) pass = vector;
            chunk = (chunk + pass - 1) / pass * pass;
            splits = (int) Math.max(1, (k + chunk - 1) / chunk);
        } else {
            long threads = 2048L * multiprocessors;
            splits = (int) Math.max(1, Math.min(Math.min(threads / Math.max(1, m), (k + 15) / 16), 65535));
            chunk = Math.max(1, (k + splits - 1) / splits);
            splits = (int) Math.max(1, (k + chunk - 1) / chunk);
        }
        boolean arg = op == Op.ARGMIN || op == Op.ARGMAX;
        // Hopper's bulk copies for the shares of a split row read in 16-byte vectors (the copies need 16-byte aligned
        // addresses and sizes); argmin/argmax keep their single ordered chain of loads
        boolean bulk = tuning.copy() == ReductionTuning.Copy.BULK && capability >= 90 && rows && splits > 1 && vector > 1 && !arg;
        boolean dynamic = tuning.schedule() == ReductionTuning.Schedule.DYNAMIC && tuning.finish() == ReductionTuning.Finish.LAST && rows && splits > 1
                && (long) tuning.blocksPerSm() * multiprocessors < (long) m * splits;
        String key = op + "|" + in + "|" + (rows ? "rows|v" + vector : "cols") + "|" + Arrays.toString(ks) + Arrays.toString(kst)
                + Arrays.toString(rs) + Arrays.toString(rst) + "|s" + (splits > 1) + (bulk ? "|bulk" : "") + (dynamic ? "|dyn" : "") + "|" + tuning.key();
        return new Plan(op, in, acc, out, os, m, k, rows, vector, splits, chunk, ks, kst, rs, rst, key, tuning, bulk, dynamic);
    }

    private static int count(int[] axes, int a, int nd) {
        int c = 0, x = a < 0 ? a + nd : a;
        for (int b : axes) if ((b < 0 ? b + nd : b) == x) c++;
        return c;
    }

    private static void addDim(List<long[]> dims, long size, long stride) {
        if (size == 1) return;
        if (!dims.isEmpty()) {
            long[] prev = dims.get(dims.size() - 1);
            if (prev[1] == stride * size) {
                prev[0] *= size;
                prev[1] = stride;
                return;
            }
        }
        dims.add(new long[] {size, stride});
    }

    private static long[] col(List<long[]> dims, int c) {
        long[] r = new long[dims.size()];
        for (int i = 0; i < r.length; i++) r[i] = dims.get(i)[c];
        return r;
    }

    // ---- code generation ---------------------------------------------------------------------------------

    private static String identity(Op op, DType acc) {
        String c = CTypes.compute(acc);
        return switch (op) {
            case SUM, MEAN, ANY -> "(" + c + ") 0";
            case PROD, ALL -> "(" + c + ") 1";
            case MIN, ARGMIN -> acc.isFloatingPoint() ? (CTypes.isDouble(acc) ? "__longlong_as_double(0x7ff0000000000000LL)" : "__int_as_float(0x7f800000)") : maxOf(acc);
            case MAX, ARGMAX -> acc.isFloatingPoint() ? (CTypes.isDouble(acc) ? "__longlong_as_double(0xfff0000000000000LL)" : "__int_as_float(0xff800000)") : minOf(acc);
        };
    }

    private static String maxOf(DType t) {
        return switch (t) {
            case INT32 -> "2147483647";
            case UINT32 -> "4294967295u";
            case INT64 -> "9223372036854775807LL";
            case UINT64 -> "18446744073709551615ULL";
            default -> throw new IllegalStateException(t.toString());
        };
    }

    private static String minOf(DType t) {
        return switch (t) {
            case INT32 -> "(-2147483647 - 1)";
            case UINT32 -> "0u";
            case INT64 -> "(-9223372036854775807LL - 1)";
            case UINT64 -> "0ULL";
            default -> throw new IllegalStateException(t.toString());
        };
    }

    /** C code combining value {@code b} (index {@code bi}) into accumulator {@code a} (index {@code ai}). */
    private static String combine(Op op, String a, String ai, String b, String bi) {
        return switch (op) {
            case SUM, MEAN -> a + " += " + b + ";";
            case PROD -> a + " *= " + b + ";";
            case MIN -> a + " = vmin(" + a + ", " + b + ");";
            case MAX -> a + " = vmax(" + a + ", " + b + ");";
            case ANY -> a + " = " + a + " | " + b + ";";
            case ALL -> a + " = " + a + " & " + b + ";";
            // first occurrence wins; a NaN counts as the extreme (numpy's rule)
            case ARGMAX -> "if (" + a + " != " + a + " ? (" + b + " != " + b + " && " + bi + " < " + ai + ") : (" + b + " != " + b + " || " + b + " > " + a
                    + " || (" + b + " == " + a + " && " + bi + " < " + ai + "))) { " + a + " = " + b + "; " + ai + " = " + bi + "; }";
            case ARGMIN -> "if (" + a + " != " + a + " ? (" + b + " != " + b + " && " + bi + " < " + ai + ") : (" + b + " != " + b + " || " + b + " < " + a
                    + " || (" + b + " == " + a + " && " + bi + " < " + ai + "))) { " + a + " = " + b + "; " + ai + " = " + bi + "; }";
        };
    }

    private static String element(Plan p, String raw) {
        // the input element as the accumulator type
        String v = CTypes.load(p.in(), raw);
        if (p.op() == Op.ANY || p.op() == Op.ALL) return "((int) (" + v + " != 0))";
        DType from = p.in().isBool() ? DType.BOOL : p.in();
        if (from == DType.FLOAT16 || from == DType.BFLOAT16) return "((float) " + v + ")";
        return "((" + CTypes.compute(p.acc()) + ") " + v + ")";
    }

    private static String offset(String var, long[] shape, long[] strides, StringBuilder b, String indent) {
        // decomposes index `var` (C order over shape) into a memory offset named var_off
        String off = var + "_off";
        b.append(indent).append("i64 ").append(off).append(" = 0; { i64 r = ").append(var).append(";");
        for (int d = shape.length - 1; d >= 0; d--) {
            if (d == 0) b.append(" ").append(off).append(" += r * ").append(strides[d]).append("LL;");
            else b.append(" ").append(off).append(" += (r % ").append(shape[d]).append("LL) * ").append(strides[d]).append("LL; r /= ").append(shape[d]).append("LL;");
        }
        b.append(" }\n");
        return off;
    }

    private static String finish(Plan p, String acc) {
        String v = p.op() == Op.MEAN ? "(" + acc + " * (" + CTypes.compute(p.acc()) + ") scale)" : acc;
        DType from = p.acc();
        if (p.op() == Op.ANY || p.op() == Op.ALL) return "(u8) (" + acc + " != 0)";
        return CTypes.store(p.out(), CTypes.convert(from, p.out(), v));
    }

    /** A 16-byte load through the instruction the tuning names (inline PTX; a plain load needs no helper). */
    private static String loadHelper(ReductionTuning.Load load) {
        String ins = switch (load) {
            case DEFAULT -> null;
            case NC -> "ld.global.nc.v4.u32";
            case NC_NA -> "ld.global.nc.L1::no_allocate.v4.u32";
            case CS -> "ld.global.cs.v4.u32";
            case L2_256 -> "ld.global.L2::256B.v4.u32";
            case NC_L2_256 -> "ld.global.nc.L2::256B.v4.u32";
        };
        if (ins == null) return "";
        return "template <typename V> __device__ __forceinline__ V ldv(const V* p) {\n"
                + "  static_assert(sizeof(V) == 16, \"16-byte loads only\");\n"
                + "  unsigned w[4];\n"
                + "  asm(\"" + ins + " {%0, %1, %2, %3}, [%4];\" : \"=r\"(w[0]), \"=r\"(w[1]), \"=r\"(w[2]), \"=r\"(w[3]) : \"l\"(p));\n"
                + "  V v; unsigned* d = reinterpret_cast<unsigned*>(&v);\n"
                + "  d[0] = w[0]; d[1] = w[1]; d[2] = w[2]; d[3] = w[3]; return v;\n}\n";
    }

    /** mbarrier and 1-D bulk copy (TMA) primitives of sm_90, as inline PTX. */
    private static final String BULK_HELPERS = """
            __device__ __forceinline__ u32 jk_smem(const void* p) { return (u32) __cvta_generic_to_shared(p); }
            __device__ __forceinline__ void jk_bar_init(u64* bar) {
              asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(jk_smem(bar)) : "memory");
            }
            __device__ __forceinline__ void jk_fence_init() {
              // the initialised barriers visible to the async proxy (the bulk copies) before the first copy
              asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
              asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            }
            __device__ __forceinline__ void jk_bulk(void* dst, const void* src, u32 bytes, u64* bar) {
              asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(jk_smem(bar)), "r"(bytes) : "memory");
              asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                           :: "r"(jk_smem(dst)), "l"(src), "r"(bytes), "r"(jk_smem(bar)) : "memory");
            }
            __device__ __forceinline__ void jk_wait(u64* bar, u32 parity) {
              u32 done;
              do {
                asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                             : "=r"(done) : "r"(jk_smem(bar)), "r"(parity) : "memory");
              } while (!done);
            }
            """;

    /**
     * The share of a split row streamed through shared memory: thread 0 keeps {@code stages} bulk copies of
     * {@code stage} bytes in flight (tile t in stage (it + t) mod stages, it counting every tile this block has taken,
     * so a block of a dynamic schedule keeps its barriers' phases across chunks); every thread waits for a stage's
     * barrier, reduces its vectors into up to four accumulators, and after a barrier of the block the stage is refilled.
     * The order of combination depends on the share alone, never on timing.
     */
    private static void bulkBody(StringBuilder b, Plan p, String vt, int threads) {
        int sb = p.tuning().stage(), st = p.tuning().stages(), sv = sb / 16;
        int r = sv % threads == 0 ? sv / threads : 0, acc = Math.max(1, Math.min(4, r));
        String at = CTypes.compute(p.acc());
        int v = p.vector();
        b.append("    const i64 nbytes = nv * 16; const i64 ntiles = (nbytes + ").append(sb).append(" - 1) / ").append(sb).append(";\n");
        b.append("    if (threadIdx.x == 0) for (i64 t = 0; t < ").append(st).append(" && t < ntiles; t++) { const u32 s = (jk_it + (u32) t) % ")
                .append(st).append("u; const i64 o = t * ").append(sb).append("; jk_bulk(jk_buf + s * ").append(sv)
                .append(", (const char*) rv + o, (u32) (nbytes - o < ").append(sb).append(" ? nbytes - o : ").append(sb).append("), jk_bar + s); }\n");
        if (acc > 1) {
            b.append("    ").append(at);
            for (int u = 1; u < acc; u++) b.append(u == 1 ? " " : ", ").append("a").append(u).append(" = a");
            b.append(";\n");
        }
        b.append("    for (i64 t = 0; t < ntiles; t++) {\n");
        b.append("      const u32 g = jk_it + (u32) t, s = g % ").append(st).append("u;\n");
        b.append("      jk_wait(jk_bar + s, (g / ").append(st).append("u) & 1u);\n");
        b.append("      const ").append(vt).append("* sv = jk_buf + s * ").append(sv).append(";\n");
        b.append("      const i64 left = nbytes - t * ").append(sb).append("; const int nvt = (int) ((left < ").append(sb).append(" ? left : ").append(sb).append(") >> 4);\n");
        String loop = "      for (int i = threadIdx.x; i < nvt; i += " + threads + ") { const " + vt + " x = sv[i];\n"
                + "        #pragma unroll\n        for (int e = 0; e < " + v + "; e++) { " + at + " b = " + element(p, "x.v[e]") + "; " + combine(p.op(), "a", "ai", "b", "ai") + " }\n      }\n";
        if (r > 0) {
            b.append("      if (nvt == ").append(sv).append(") {\n");
            for (int u = 0; u < r; u++) b.append("        const ").append(vt).append(" x").append(u).append(" = sv[threadIdx.x + ").append(u * threads).append("];\n");
            b.append("        #pragma unroll\n        for (int e = 0; e < ").append(v).append("; e++) {");
            for (int u = 0; u < r; u++) {
                int k = u % acc;
                b.append(" { ").append(at).append(" b = ").append(element(p, "x" + u + ".v[e]")).append("; ").append(combine(p.op(), k == 0 ? "a" : "a" + k, "ai", "b", "ai")).append(" }");
            }
            b.append(" }\n      } else {\n").append(loop).append("      }\n");
        } else {
            b.append(loop);
        }
        // every thread is done with stage s before it is refilled
        b.append("      __syncthreads();\n");
        b.append("      if (threadIdx.x == 0 && t + ").append(st).append(" < ntiles) { const i64 o = (t + ").append(st).append(") * ").append(sb)
                .append("; jk_bulk(jk_buf + s * ").append(sv).append(", (const char*) rv + o, (u32) (nbytes - o < ").append(sb).append(" ? nbytes - o : ").append(sb)
                .append("), jk_bar + s); }\n");
        b.append("    }\n    jk_it += (u32) ntiles;\n");
        if (acc > 1) {
            b.append("   ");
            for (int w = 1; w < acc; w *= 2) {
                for (int u = 0; u + w < acc; u += 2 * w) b.append(" ").append(combine(p.op(), u == 0 ? "a" : "a" + u, "ai", "a" + (u + w), "ai"));
            }
            b.append("\n");
        }
    }

    static String generate(Plan p) {
        boolean arg = p.arg();
        String at = CTypes.compute(p.acc());
        String it = CTypes.storage(p.in());
        String ot = CTypes.storage(p.out());
        StringBuilder b = new StringBuilder(CTypes.PRELUDE);
        // block-wide combine: warp shuffles, then one value per warp through shared memory
        b.append("__device__ __forceinline__ void block_combine(").append(at).append("& a, i64& ai) {\n");
        b.append("  __shared__ ").append(at).append(" sv[32]; __shared__ i64 si[32];\n");
        b.append("  for (int o = 16; o > 0; o >>= 1) { ").append(at).append(" b = __shfl_down_sync(0xffffffffu, a, o); i64 bi = __shfl_down_sync(0xffffffffu, ai, o); (void) bi; ")
                .append(combine(p.op(), "a", "ai", "b", "bi")).append(" }\n");
        b.append("  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;\n");
        b.append("  if (lane == 0) { sv[warp] = a; si[warp] = ai; }\n  __syncthreads();\n");
        b.append("  if (warp == 0) {\n    const int nw = (blockDim.x + 31) >> 5;\n    a = lane < nw ? sv[lane] : ").append(identity(p.op(), p.acc()))
                .append("; ai = lane < nw ? si[lane] : 0x7fffffffffffffffLL;\n");
        b.append("    for (int o = 16; o > 0; o >>= 1) { ").append(at).append(" b = __shfl_down_sync(0xffffffffu, a, o); i64 bi = __shfl_down_sync(0xffffffffu, ai, o); (void) bi; ")
                .append(combine(p.op(), "a", "ai", "b", "bi")).append(" }\n  }\n}\n");
        // one warp's combine (the warp-per-row kernel): shuffles only, lane 0 ends with the result
        b.append("__device__ __forceinline__ void warp_combine(").append(at).append("& a, i64& ai) {\n");
        b.append("  for (int o = 16; o > 0; o >>= 1) { ").append(at).append(" b = __shfl_down_sync(0xffffffffu, a, o); i64 bi = __shfl_down_sync(0xffffffffu, ai, o); (void) bi; ")
                .append(combine(p.op(), "a", "ai", "b", "bi")).append(" }\n}\n");
        // pass 1
        // the promise of blocksPerSm resident blocks caps registers; more than 2048 threads per SM cannot be resident
        int nt1 = p.threads(), minBlocks = Math.max(1, Math.min(p.tuning().blocksPerSm(), 2048 / nt1));
        b.append(loadHelper(p.tuning().load()));
        if (p.bulk()) b.append(BULK_HELPERS);
        b.append("extern \"C\" __global__ void __launch_bounds__(").append(nt1).append(", ").append(minBlocks).append(") ").append(PASS1).append("(const ").append(it)
                .append("* __restrict__ in, ").append(ot).append("* __restrict__ out, ").append(at).append("* __restrict__ part, i64* __restrict__ pidx, unsigned* __restrict__ ticket, i64 M, i64 K, i64 chunk, int splits, double scale) {\n");
        if (p.rows()) {
            boolean warp = p.warpRows();
            // warp-per-row: lane and 32 stand where a block's thread index and size stand
            String tid = warp ? "lane" : "threadIdx.x", nt = warp ? "32" : "(i64) blockDim.x";
            if (p.bulk()) {
                // the stages and their barriers (one arrival: the copying thread's, plus the bytes the copy brings)
                b.append("  __shared__ __align__(128) Vec<").append(it).append(", ").append(p.vector()).append("> jk_buf[")
                        .append(p.tuning().stages() * (p.tuning().stage() / 16)).append("];\n");
                b.append("  __shared__ __align__(8) u64 jk_bar[").append(p.tuning().stages()).append("];\n");
                b.append("  if (threadIdx.x == 0) { for (int s = 0; s < ").append(p.tuning().stages()).append("; s++) jk_bar_init(jk_bar + s); jk_fence_init(); }\n");
                b.append("  __syncthreads();\n  u32 jk_it = 0;\n");
            }
            if (p.dynamic()) {
                // a wave of persistent blocks takes chunks from the counter after the M tickets; a chunk's partial goes to
                // its own slot, so which block reduced it changes nothing
                b.append("  __shared__ u32 jk_next;\n");
                b.append("  for (;;) {\n");
                b.append("    if (threadIdx.x == 0) jk_next = atomicAdd(ticket + M, 1u);\n");
                b.append("    __syncthreads();\n");
                b.append("    const i64 jk_c = jk_next;\n");
                b.append("    if (jk_c >= M * (i64) splits) break;\n");
                b.append("    const int split = (int) (jk_c % splits); const i64 m = jk_c / splits;\n");
            } else {
            b.append("  const int split = blockIdx.x;\n");
            }
            if (p.dynamic()) {
                // the loop is open
            } else if (warp) {
                b.append("  const int lane = threadIdx.x & 31;\n");
                b.append("  for (i64 m = (i64) blockIdx.y * (blockDim.x >> 5) + (threadIdx.x >> 5); m < M; m += (i64) gridDim.y * (blockDim.x >> 5)) {\n");
            } else {
                b.append("  for (i64 m = blockIdx.y; m < M; m += gridDim.y) {\n");
            }
            String ob = offset("m", p.keptShape(), p.keptStrides(), b, "    ");
            b.append("    const i64 kb = (i64) split * chunk; const i64 ke = K < kb + chunk ? K : kb + chunk;\n");
            b.append("    ").append(at).append(" a = ").append(identity(p.op(), p.acc())).append("; i64 ai = 0x7fffffffffffffffLL;\n");
            if (p.redShape().length <= 1) {
                b.append("    const ").append(it).append("* row = in + ").append(ob).append(" + kb; const i64 len = ke > kb ? ke - kb : 0;\n");
                int v = p.vector();
                if (v > 1) {
                    String vt = "Vec<" + it + ", " + v + ">";
                    b.append("    const i64 nv = len / ").append(v).append(";\n");
                    b.append("    const ").append(vt).append("* rv = reinterpret_cast<const ").append(vt).append("*>(row);\n");
                    b.append("    i64 j = ").append(tid).append(";\n");
                    if (p.bulk()) bulkBody(b, p, vt, nt1);
                    else {
                    int L = p.tuning().loads();
                    String ld = p.tuning().load() == ReductionTuning.Load.DEFAULT ? "*" : "ldv";
                    if (!arg && L > 1) {
                        // L independent 16-byte loads in flight per thread, each into its own accumulator, so
                        // neither the loads nor the combines wait on one another (order-free ops only: argmin/argmax
                        // keep one chain below)
                        b.append("    ").append(at);
                        for (int u = 1; u < L; u++) b.append(u == 1 ? " " : ", ").append("a").append(u).append(" = a");
                        b.append(";\n");
                        b.append("    for (; j + ").append(L - 1).append(" * ").append(nt).append(" < nv; j += ").append(L).append(" * ").append(nt).append(") {\n");
                        for (int u = 0; u < L; u++) {
                            b.append("      const ").append(vt).append(" x").append(u).append(" = ").append(ld).append("(rv + j + ").append(u).append(" * ").append(nt).append(");\n");
                        }
                        b.append("      #pragma unroll\n      for (int e = 0; e < ").append(v).append("; e++) {");
                        for (int u = 0; u < L; u++) {
                            b.append(" { ").append(at).append(" b = ").append(element(p, "x" + u + ".v[e]")).append("; ")
                                    .append(combine(p.op(), u == 0 ? "a" : "a" + u, "ai", "b", "ai")).append(" }");
                        }
                        b.append(" }\n    }\n");
                    }
                    b.append("    #pragma unroll 4\n    for (; j < nv; j += ").append(nt).append(") {\n      const ").append(vt).append(" x = ").append(ld).append("(rv + j);\n");
                    b.append("      #pragma unroll\n      for (int e = 0; e < ").append(v).append("; e++) { ").append(at).append(" b = ")
                            .append(element(p, "x.v[e]")).append("; i64 bi = kb + j * ").append(v).append(" + e; (void) bi; ")
                            .append(combine(p.op(), "a", "ai", "b", "bi")).append(" }\n    }\n");
                    if (!arg && L > 1) {
                        // pairwise tree over the accumulators
                        b.append("   ");
                        for (int w = 1; w < L; w *= 2) {
                            for (int u = 0; u + w < L; u += 2 * w) {
                                b.append(" ").append(combine(p.op(), u == 0 ? "a" : "a" + u, "ai", "a" + (u + w), "ai"));
                            }
                        }
                        b.append("\n");
                    }
                    }
                    b.append("    for (i64 j = nv * ").append(v).append(" + ").append(tid).append("; j < len; j += ").append(nt).append(") { ");
                } else {
                    b.append("    for (i64 j = ").append(tid).append("; j < len; j += ").append(nt).append(") { ");
                }
                b.append(at).append(" b = ").append(element(p, "row[j]")).append("; i64 bi = kb + j; (void) bi; ")
                        .append(combine(p.op(), "a", "ai", "b", "bi")).append(" }\n");
            } else {
                b.append("    for (i64 kk = kb + threadIdx.x; kk < ke; kk += blockDim.x) {\n");
                String ro = offset("kk", p.redShape(), p.redStrides(), b, "      ");
                b.append("      ").append(at).append(" b = ").append(element(p, "in[" + ob + " + " + ro + "]")).append("; i64 bi = kk; (void) bi; ")
                        .append(combine(p.op(), "a", "ai", "b", "bi")).append("\n    }\n");
            }
            b.append("    ").append(warp ? "warp_combine" : "block_combine").append("(a, ai);\n");
            b.append("    if (").append(warp ? "lane" : "threadIdx.x").append(" == 0) {\n");
            b.append("      if (splits == 1) out[m] = ").append(arg ? "ai" : finish(p, "a")).append(";\n");
            b.append("      else { part[m * splits + split] = a; if (pidx) pidx[m * splits + split] = ai; }\n    }\n");
            if (p.lastBlockFinishes()) {
                // the last block of row m to finish (the ticket counts blocks) combines its partials in split order,
                // reading them past L1 (other blocks wrote them); it zeroes the ticket for the next launch
                b.append("    __shared__ int last;\n");
                b.append("    if (threadIdx.x == 0) { __threadfence(); last = atomicAdd(ticket + m, 1u) == (unsigned) (splits - 1); }\n");
                b.append("    __syncthreads();\n");
                b.append("    if (last) {\n");
                b.append("      a = ").append(identity(p.op(), p.acc())).append("; ai = 0x7fffffffffffffffLL;\n");
                b.append("      for (int s = threadIdx.x; s < splits; s += blockDim.x) { ").append(at).append(" b = __ldcg(part + m * splits + s); i64 bi = pidx ? __ldcg(pidx + m * splits + s) : 0; (void) bi; ")
                        .append(combine(p.op(), "a", "ai", "b", "bi")).append(" }\n");
                b.append("      block_combine(a, ai);\n");
                b.append("      if (threadIdx.x == 0) { out[m] = ").append(arg ? "ai" : finish(p, "a")).append("; ticket[m] = 0u; }\n    }\n");
            }
            if (!warp) b.append("    __syncthreads();\n");
            b.append("  }\n}\n");
        } else {
            b.append("  const int split = blockIdx.y;\n");
            b.append("  for (i64 m = (i64) blockIdx.x * blockDim.x + threadIdx.x; m < M; m += (i64) gridDim.x * blockDim.x) {\n");
            String ob = offset("m", p.keptShape(), p.keptStrides(), b, "    ");
            b.append("    const i64 kb = (i64) split * chunk; const i64 ke = K < kb + chunk ? K : kb + chunk;\n");
            b.append("    ").append(at).append(" a = ").append(identity(p.op(), p.acc())).append("; i64 ai = 0x7fffffffffffffffLL;\n");
            b.append("    #pragma unroll 4\n    for (i64 kk = kb; kk < ke; kk++) {\n");
            String ro = offset("kk", p.redShape(), p.redStrides(), b, "      ");
            b.append("      ").append(at).append(" b = ").append(element(p, "in[" + ob + " + " + ro + "]")).append("; i64 bi = kk; (void) bi; ")
                    .append(combine(p.op(), "a", "ai", "b", "bi")).append("\n    }\n");
            b.append("    if (splits == 1) out[m] = ").append(arg ? "ai" : finish(p, "a")).append(";\n");
            b.append("    else { part[m * splits + split] = a; if (pidx) pidx[m * splits + split] = ai; }\n  }\n}\n");
        }
        // pass 2: one block per output combines its partials (in split order, so ties keep the first index)
        b.append("extern \"C\" __global__ void __launch_bounds__(").append(BLOCK).append(") ").append(PASS2).append("(const ").append(at)
                .append("* __restrict__ part, const i64* __restrict__ pidx, ").append(ot).append("* __restrict__ out, i64 M, int splits, double scale) {\n");
        b.append("  for (i64 m = blockIdx.x; m < M; m += gridDim.x) {\n");
        b.append("    ").append(at).append(" a = ").append(identity(p.op(), p.acc())).append("; i64 ai = 0x7fffffffffffffffLL;\n");
        b.append("    for (int s = threadIdx.x; s < splits; s += blockDim.x) { ").append(at).append(" b = part[m * splits + s]; i64 bi = pidx ? pidx[m * splits + s] : 0; (void) bi; ")
                .append(combine(p.op(), "a", "ai", "b", "bi")).append(" }\n");
        b.append("    block_combine(a, ai);\n");
        b.append("    if (threadIdx.x == 0) out[m] = ").append(arg ? "ai" : finish(p, "a")).append(";\n");
        b.append("    __syncthreads();\n  }\n}\n");
        return b.toString();
    }
}

package io.jkompute.cuda.internal;

import java.util.Locale;

/**
 * The reduction kernels' launch and code-generation knobs, read from internal system properties so that one JVM can
 * compare configurations on a device (jkompute-bench's {@code ReductionSweep}); not public API. Every knob is part of
 * the kernel cache key, so a changed property builds a new kernel. The defaults are the tuned behaviour.
 * <table>
 * <caption>System properties</caption>
 * <tr><th>property</th><th>values (default first)</th><th>meaning</th></tr>
 * <tr><td>{@code jkompute.cuda.reduce.threads}</td><td>512, 32..1024 (multiple of 32)</td><td>threads per block of a
 * split row (a full reduction), the column kernel and the warp-per-row kernel</td></tr>
 * <tr><td>{@code jkompute.cuda.reduce.blocksPerSm}</td><td>2, 1..32</td><td>resident blocks per SM the split grid is
 * sized for (one wave) and {@code __launch_bounds__} promises</td></tr>
 * <tr><td>{@code jkompute.cuda.reduce.loads}</td><td>8, 1..16</td><td>independent 16-byte loads in flight per thread,
 * each into its own accumulator (order-free operations)</td></tr>
 * <tr><td>{@code jkompute.cuda.reduce.rowMode}</td><td>auto, warp, block</td><td>short rows (up to 8192 elements): one
 * warp per row (auto: from 2048 rows on) or one block per row</td></tr>
 * <tr><td>{@code jkompute.cuda.reduce.rowThreads}</td><td>256, 32..1024 (multiple of 32)</td><td>threads per block
 * when a whole row gets one block (256 threads x 4 loads x 4 floats = one pass over a 4096-element row)</td></tr>
 * <tr><td>{@code jkompute.cuda.reduce.load}</td><td>default, nc, nc_na, cs, l2_256, nc_l2_256</td><td>16-byte load
 * instruction: plain, {@code ld.global.nc} (read-only path, like {@code __ldg}), {@code ld.global.nc.L1::no_allocate},
 * {@code ld.global.cs} (evict-first streaming), or a plain or read-only load asking L2 to fetch the whole 256-byte
 * sector group ({@code .L2::256B})</td></tr>
 * <tr><td>{@code jkompute.cuda.reduce.tile}</td><td>0, or 1024..2^30</td><td>elements per block of a split row
 * (a full reduction of few outputs); 0: the row is cut into one wave of blocks ({@code blocksPerSm} per SM), otherwise
 * into as many blocks of this size as it takes, so that the hardware balances blocks over SMs as they finish</td></tr>
 * <tr><td>{@code jkompute.cuda.reduce.finish}</td><td>last, kernel</td><td>how a split row's partial results are
 * combined: a second kernel, or the block that finishes last (an atomic ticket per output) in the same kernel; either
 * way in split order, so the result does not depend on timing</td></tr>
 * <tr><td>{@code jkompute.cuda.reduce.copy}</td><td>loads, bulk</td><td>how a split row's share reaches the threads:
 * their own 16-byte loads, or (compute capability 9.0 and up; older devices keep the loads) Hopper's 1-D bulk copies
 * ({@code cp.async.bulk}, completion counted on an mbarrier) into {@code stages} shared-memory buffers of
 * {@code stage} bytes, issued by one thread, the threads reducing from shared memory</td></tr>
 * <tr><td>{@code jkompute.cuda.reduce.stage}</td><td>16384, 1024..32768 (multiple of 1024)</td><td>bytes per bulk
 * copy stage</td></tr>
 * <tr><td>{@code jkompute.cuda.reduce.stages}</td><td>2, 2..8</td><td>bulk copy stages in flight per block
 * (stages x stage at most 46 KiB: static shared memory)</td></tr>
 * <tr><td>{@code jkompute.cuda.reduce.schedule}</td><td>static, dynamic</td><td>a split row's blocks: one per share
 * (static), or one wave of persistent blocks ({@code blocksPerSm} per SM) taking chunks of {@code tile} elements
 * (65536 when tile is 0) from an atomic counter until none is left, so that every SM finishes at about the same time;
 * each chunk's partial lands in its chunk's slot and the combine stays in chunk order (needs finish=last)</td></tr>
 * </table>
 */
public record ReductionTuning(int threads, int blocksPerSm, int loads, RowMode rowMode, int rowThreads, Load load, int tile, Finish finish,
                              Copy copy, int stage, int stages, Schedule schedule) {
    public static final String PREFIX = "jkompute.cuda.reduce.";

    /** Every knob's name after {@link #PREFIX}. */
    public static final java.util.List<String> KNOBS = java.util.List.of("threads", "blocksPerSm", "loads", "rowMode", "rowThreads", "load", "tile", "finish",
            "copy", "stage", "stages", "schedule");

    public enum RowMode { AUTO, WARP, BLOCK }

    public enum Load { DEFAULT, NC, NC_NA, CS, L2_256, NC_L2_256 }

    public enum Finish { KERNEL, LAST }

    public enum Copy { LOADS, BULK }

    public enum Schedule { STATIC, DYNAMIC }

    /** Largest stages x stage: the static shared-memory limit (48 KiB) less the combine's and the barriers' share. */
    public static final int MAX_STAGE_BYTES = 46 * 1024;

    /** Chunk of a dynamic schedule when no tile is given: 256 KiB of float32. */
    public static final int DYNAMIC_CHUNK = 65536;

    public static final ReductionTuning DEFAULTS = new ReductionTuning(512, ReductionKernel.BLOCKS_PER_SM, 8, RowMode.AUTO, 256, Load.DEFAULT, 0, Finish.LAST,
            Copy.LOADS, 16384, 2, Schedule.STATIC);

    public ReductionTuning {
        threads(PREFIX + "threads", threads);
        threads(PREFIX + "rowThreads", rowThreads);
        range(PREFIX + "blocksPerSm", blocksPerSm, 1, 32);
        range(PREFIX + "loads", loads, 1, 16);
        if (tile != 0) range(PREFIX + "tile", tile, 1024, 1 << 30);
        if (rowMode == null || load == null || finish == null || copy == null || schedule == null) {
            throw new IllegalArgumentException("rowMode, load, finish, copy and schedule must be given");
        }
        range(PREFIX + "stage", stage, 1024, 32768);
        if (stage % 1024 != 0) throw new IllegalArgumentException(PREFIX + "stage must be a multiple of 1024, not " + stage);
        range(PREFIX + "stages", stages, 2, 8);
        if (stages * stage > MAX_STAGE_BYTES) {
            throw new IllegalArgumentException(PREFIX + "stages x " + PREFIX + "stage must be at most " + MAX_STAGE_BYTES + " bytes, not " + stages * stage);
        }
        if (schedule == Schedule.DYNAMIC && finish != Finish.LAST) {
            throw new IllegalArgumentException(PREFIX + "schedule=dynamic needs " + PREFIX + "finish=last");
        }
    }

    /** The first eight knobs; a split row's share is read by the threads' own loads, blocks scheduled statically. */
    public ReductionTuning(int threads, int blocksPerSm, int loads, RowMode rowMode, int rowThreads, Load load, int tile, Finish finish) {
        this(threads, blocksPerSm, loads, rowMode, rowThreads, load, tile, finish, DEFAULTS.copy, DEFAULTS.stage, DEFAULTS.stages, DEFAULTS.schedule);
    }

    /** The first six knobs; a split row is cut and finished as by default. */
    public ReductionTuning(int threads, int blocksPerSm, int loads, RowMode rowMode, int rowThreads, Load load) {
        this(threads, blocksPerSm, loads, rowMode, rowThreads, load, DEFAULTS.tile, DEFAULTS.finish);
    }

    /** The knobs as the system properties set them now (unset: the default); a bad value is a clear error. */
    public static ReductionTuning current() {
        String t = System.getProperty(PREFIX + "threads"), b = System.getProperty(PREFIX + "blocksPerSm"),
                l = System.getProperty(PREFIX + "loads"), m = System.getProperty(PREFIX + "rowMode"),
                r = System.getProperty(PREFIX + "rowThreads"), ld = System.getProperty(PREFIX + "load"),
                tl = System.getProperty(PREFIX + "tile"), f = System.getProperty(PREFIX + "finish"),
                c = System.getProperty(PREFIX + "copy"), sg = System.getProperty(PREFIX + "stage"),
                ss = System.getProperty(PREFIX + "stages"), sc = System.getProperty(PREFIX + "schedule");
        if (t == null && b == null && l == null && m == null && r == null && ld == null && tl == null && f == null
                && c == null && sg == null && ss == null && sc == null) return DEFAULTS;
        ReductionTuning d = DEFAULTS;
        return new ReductionTuning(integer("threads", t, d.threads), integer("blocksPerSm", b, d.blocksPerSm), integer("loads", l, d.loads),
                m == null ? d.rowMode : choice("rowMode", m, RowMode.class), integer("rowThreads", r, d.rowThreads),
                ld == null ? d.load : choice("load", ld, Load.class), integer("tile", tl, d.tile),
                f == null ? d.finish : choice("finish", f, Finish.class),
                c == null ? d.copy : choice("copy", c, Copy.class), integer("stage", sg, d.stage), integer("stages", ss, d.stages),
                sc == null ? d.schedule : choice("schedule", sc, Schedule.class));
    }

    /** The part of the kernel cache key naming these knobs. */
    public String key() {
        return "t" + threads + "b" + blocksPerSm + "l" + loads + rowMode + rowThreads + load + "x" + tile + finish + copy + stage + "s" + stages + schedule;
    }

    /** The knobs as {@code -D} flags, every one spelled out. */
    public String flags() {
        return "-D" + PREFIX + "threads=" + threads + " -D" + PREFIX + "blocksPerSm=" + blocksPerSm + " -D" + PREFIX + "loads=" + loads
                + " -D" + PREFIX + "rowMode=" + rowMode.name().toLowerCase(Locale.ROOT) + " -D" + PREFIX + "rowThreads=" + rowThreads
                + " -D" + PREFIX + "load=" + load.name().toLowerCase(Locale.ROOT) + " -D" + PREFIX + "tile=" + tile
                + " -D" + PREFIX + "finish=" + finish.name().toLowerCase(Locale.ROOT)
                + " -D" + PREFIX + "copy=" + copy.name().toLowerCase(Locale.ROOT) + " -D" + PREFIX + "stage=" + stage
                + " -D" + PREFIX + "stages=" + stages + " -D" + PREFIX + "schedule=" + schedule.name().toLowerCase(Locale.ROOT);
    }

    /** Sets the system properties to these knobs (what {@link #current()} then reads). */
    public void apply() {
        System.setProperty(PREFIX + "threads", Integer.toString(threads));
        System.setProperty(PREFIX + "blocksPerSm", Integer.toString(blocksPerSm));
        System.setProperty(PREFIX + "loads", Integer.toString(loads));
        System.setProperty(PREFIX + "rowMode", rowMode.name().toLowerCase(Locale.ROOT));
        System.setProperty(PREFIX + "rowThreads", Integer.toString(rowThreads));
        System.setProperty(PREFIX + "load", load.name().toLowerCase(Locale.ROOT));
        System.setProperty(PREFIX + "tile", Integer.toString(tile));
        System.setProperty(PREFIX + "finish", finish.name().toLowerCase(Locale.ROOT));
        System.setProperty(PREFIX + "copy", copy.name().toLowerCase(Locale.ROOT));
        System.setProperty(PREFIX + "stage", Integer.toString(stage));
        System.setProperty(PREFIX + "stages", Integer.toString(stages));
        System.setProperty(PREFIX + "schedule", schedule.name().toLowerCase(Locale.ROOT));
    }

    /** Removes the properties again (back to the defaults). */
    public static void clear() {
        for (String k : KNOBS) System.clearProperty(PREFIX + k);
    }

    private static int integer(String name, String v, int dflt) {
        if (v == null) return dflt;
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PREFIX + name + " must be an integer, not '" + v + "'");
        }
    }

    private static <E extends Enum<E>> E choice(String name, String v, Class<E> type) {
        for (E e : type.getEnumConstants()) if (e.name().equalsIgnoreCase(v.trim())) return e;
        throw new IllegalArgumentException(PREFIX + name + " must be one of " + java.util.Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT) + ", not '" + v + "'");
    }

    private static void threads(String name, int v) {
        if (v < 32 || v > 1024 || v % 32 != 0) throw new IllegalArgumentException(name + " must be a multiple of 32 from 32 to 1024, not " + v);
    }

    private static void range(String name, int v, int lo, int hi) {
        if (v < lo || v > hi) throw new IllegalArgumentException(name + " must be from " + lo + " to " + hi + ", not " + v);
    }
}

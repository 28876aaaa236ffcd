package io.jkompute.cuda;

import io.jkompute.cuda.internal.ArrayLayout;

/**
 * One entry of a numpy-style index for {@link GpuArray#slice(Slice...)}: a range {@code start:stop:step} (Python
 * rules: negative bounds count from the end, bounds are clipped, a negative step walks backwards: {@code every(-1)} is {@code [::-1]}) or a single index, which drops
 * the dimension.
 */
public final class Slice {
    private static final Slice ALL = new Slice(ArrayLayout.NONE, ArrayLayout.NONE, 1, false);

    final long start;
    final long stop;
    final long step;
    final boolean single;

    private Slice(long start, long stop, long step, boolean single) {
        if (step == 0) throw new IllegalArgumentException("slice step cannot be zero");
        this.start = start;
        this.stop = stop;
        this.step = step;
        this.single = single;
    }

    /** {@code :} — the whole dimension. */
    public static Slice all() {
        return ALL;
    }

    /** {@code start:stop}. */
    public static Slice range(long start, long stop) {
        return new Slice(start, stop, 1, false);
    }

    /** {@code start:stop:step}. */
    public static Slice range(long start, long stop, long step) {
        return new Slice(start, stop, step, false);
    }

    /** {@code start:}. */
    public static Slice from(long start) {
        return new Slice(start, ArrayLayout.NONE, 1, false);
    }

    /** {@code :stop}. */
    public static Slice to(long stop) {
        return new Slice(ArrayLayout.NONE, stop, 1, false);
    }

    /** {@code ::step}. */
    public static Slice every(long step) {
        return new Slice(ArrayLayout.NONE, ArrayLayout.NONE, step, false);
    }

    /** {@code i} — a single index; the dimension disappears from the result. */
    public static Slice at(long index) {
        return new Slice(index, index, 1, true);
    }

    @Override
    public String toString() {
        if (single) return Long.toString(start);
        return (start == ArrayLayout.NONE ? "" : start) + ":" + (stop == ArrayLayout.NONE ? "" : stop) + (step == 1 ? "" : ":" + step);
    }
}

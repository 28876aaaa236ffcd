package io.jkompute;

import java.util.ArrayList;
import java.util.List;

/**
 * Copies the first tensor or image into each of the others, on the GPU; tensors and images may be mixed.
 * Types and element counts must match. The copy is of GPU memory: for DEVICE targets, read the result on the host
 * after an {@link OpSyncLocal} (Kompute also memcpy'd stale host copies behind the scenes; jkompute does not).
 * {@link #range} copies a run of elements between two tensors.
 */
public final class OpCopy extends Op {
    private final Region source;
    private final List<Region> targets;

    /** Copies {@code source} into every target. */
    public OpCopy(Memory source, Memory... targets) {
        this(concat(source, targets));
    }

    /** Kompute's form: the first element is the source, the rest are targets. */
    public OpCopy(List<? extends Memory> memories) {
        List<Memory> all = nonEmpty("OpCopy", memories);
        if (all.size() < 2) {
            throw new IllegalArgumentException("OpCopy needs a source and at least one target, got " + all.size() + " object(s)");
        }
        Memory src = all.get(0);
        List<Region> ts = new ArrayList<>();
        for (Memory dst : all.subList(1, all.size())) {
            checkCompatible(src, dst);
            ts.add(Region.whole(dst));
        }
        this.source = Region.whole(src);
        this.targets = List.copyOf(ts);
    }

    private OpCopy(Region source, Region target) {
        this.source = source;
        this.targets = List.of(target);
    }

    /** Copies elements [srcOffset, srcOffset + count) of {@code src} to [dstOffset, dstOffset + count) of {@code dst}. */
    public static OpCopy range(Tensor src, long srcOffset, Tensor dst, long dstOffset, long count) {
        sameType(src, dst);
        src.checkRange("OpCopy source", srcOffset, count);
        dst.checkRange("OpCopy target", dstOffset, count);
        return new OpCopy(new Region(src, srcOffset, count), new Region(dst, dstOffset, count));
    }

    private static List<Memory> concat(Memory first, Memory[] rest) {
        List<Memory> l = new ArrayList<>();
        l.add(first);
        l.addAll(List.of(rest));
        return l;
    }

    private static void sameType(Memory a, Memory b) {
        if (a.dataType != b.dataType || a.elementSize != b.elementSize) {
            throw new IllegalArgumentException("OpCopy: " + a + " and " + b + " have different data types");
        }
    }

    private static void checkCompatible(Memory src, Memory dst) {
        sameType(src, dst);
        if (src.size != dst.size) {
            throw new IllegalArgumentException("OpCopy: " + src + " has " + src.size + " elements, " + dst + " has " + dst.size);
        }
        if (src instanceof Image a && dst instanceof Image b && (a.width != b.width || a.height != b.height)) {
            throw new IllegalArgumentException("OpCopy: image sizes differ, " + a.width + "x" + a.height + " and "
                    + b.width + "x" + b.height);
        }
    }

    @Override
    void record(CommandRecorder rec) {
        rec.beforeTransfer();
        Memory src = source.memory();
        for (Region r : targets) {
            Memory dst = r.memory();
            if (src instanceof Tensor s && dst instanceof Tensor d) {
                DeviceCopy dc = s.manager.deviceCopy();
                if (dc.suits(s, source.byteOffset(), d, r.byteOffset(), source.byteCount())) {
                    dc.record(rec, s, source.byteOffset(), d, r.byteOffset(), source.byteCount());
                } else {
                    rec.copyBuffer(s.buffer, source.byteOffset(), d.buffer, r.byteOffset(), source.byteCount());
                }
            } else if (src instanceof Tensor s && dst instanceof Image d) {
                rec.copyBufferToImage(s.buffer, 0, d);
            } else if (src instanceof Image s && dst instanceof Tensor d) {
                rec.copyImageToBuffer(s, d.buffer, 0);
            } else {
                rec.copyImage((Image) src, (Image) dst);
            }
        }
    }

    @Override
    List<Memory> memories() {
        List<Memory> l = new ArrayList<>();
        l.add(source.memory());
        targets.forEach(r -> l.add(r.memory()));
        return l;
    }
}

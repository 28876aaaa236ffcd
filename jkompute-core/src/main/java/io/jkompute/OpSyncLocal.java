package io.jkompute;

import java.util.List;

/**
 * Copies GPU data back to the host: for each DEVICE tensor or image, its device memory into its staging memory, so
 * {@code toFloatArray()} and {@code data()} see what the GPU computed. Other memory types are skipped (HOST and
 * DEVICE_AND_HOST are already visible). {@link #OpSyncLocal(Tensor, long, long)} syncs a sub-range.
 */
public final class OpSyncLocal extends Op {
    private final List<Region> regions;

    public OpSyncLocal(Memory... memories) {
        this(List.of(memories));
    }

    public OpSyncLocal(List<? extends Memory> memories) {
        this.regions = nonEmpty("OpSyncLocal", memories).stream().map(Region::whole).toList();
    }

    /** Syncs only elements [offset, offset + count) of a tensor. */
    public OpSyncLocal(Tensor tensor, long offset, long count) {
        tensor.checkRange("OpSyncLocal", offset, count);
        this.regions = List.of(new Region(tensor, offset, count));
    }

    @Override
    void record(CommandRecorder rec) {
        rec.beforeTransfer();
        for (Region r : regions) {
            Memory m = r.memory();
            if (m.memoryType != MemoryType.DEVICE) {
                continue;
            }
            if (m instanceof Tensor t) {
                rec.copyBuffer(t.buffer, r.byteOffset(), t.staging.buffer(), t.staging.offset() + r.byteOffset(), r.byteCount());
            } else {
                rec.copyImageToBuffer((Image) m, m.staging.buffer(), m.staging.offset());
            }
        }
    }

    @Override
    List<Memory> memories() {
        return regions.stream().map(Region::memory).toList();
    }
}

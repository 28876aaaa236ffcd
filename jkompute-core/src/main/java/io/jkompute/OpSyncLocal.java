package io.jkompute;

import java.util.List;

/**
 * Copies GPU data back to the host: for each DEVICE tensor or image, its device memory into its staging memory, so
 * {@code toFloatArray()} and {@code data()} see what the GPU computed. Other memory types are skipped (HOST and
 * DEVICE_AND_HOST are already visible). {@link #OpSyncLocal(Tensor, long, long)} syncs a sub-range.
 */
public final class OpSyncLocal extends Op {
    private final List<Region> regions;
    private final List<Memory> memories;

    /** Copies each DEVICE tensor's or image's device memory back to its staging memory. */
    public OpSyncLocal(Memory... memories) {
        this(List.of(memories));
    }

    /** Copies each DEVICE tensor's or image's device memory back to its staging memory. */
    public OpSyncLocal(List<? extends Memory> memories) {
        this.regions = Region.wholes("OpSyncLocal", memories);
        this.memories = List.copyOf(memories);
    }

    /** Syncs only elements [offset, offset + count) of a tensor. */
    public OpSyncLocal(Tensor tensor, long offset, long count) {
        tensor.checkRange("OpSyncLocal", offset, count);
        this.regions = List.of(new Region(tensor, offset, count));
        this.memories = List.of(tensor);
    }

    @Override
    void record(CommandRecorder rec) {
        Region.recordSync(rec, regions, false);
    }

    @Override
    List<Memory> memories() {
        return memories;
    }
}

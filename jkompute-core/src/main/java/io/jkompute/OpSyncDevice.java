package io.jkompute;

import java.util.List;

/**
 * Copies host data to the GPU: for each DEVICE tensor or image, its staging memory into its device memory.
 * HOST, DEVICE_AND_HOST and STORAGE memory need no copy and are skipped, as in Kompute. A sub-range of a tensor can be
 * synced alone with {@link #OpSyncDevice(Tensor, long, long)}, which Kompute lacks.
 */
public final class OpSyncDevice extends Op {
    private final List<Region> regions;
    private final List<Memory> memories;

    /** Copies each DEVICE tensor's or image's staging memory to its device memory. */
    public OpSyncDevice(Memory... memories) {
        this(List.of(memories));
    }

    /** Copies each DEVICE tensor's or image's staging memory to its device memory. */
    public OpSyncDevice(List<? extends Memory> memories) {
        this.regions = Region.wholes("OpSyncDevice", memories);
        this.memories = List.copyOf(memories);
    }

    /** Syncs only elements [offset, offset + count) of a tensor. */
    public OpSyncDevice(Tensor tensor, long offset, long count) {
        tensor.checkRange("OpSyncDevice", offset, count);
        this.regions = List.of(new Region(tensor, offset, count));
        this.memories = List.of(tensor);
    }

    @Override
    void record(CommandRecorder rec) {
        Region.recordSync(rec, regions, true);
    }

    @Override
    List<Memory> memories() {
        return memories;
    }
}

package io.jkompute;

import java.util.List;

/**
 * Copies host data to the GPU: for each DEVICE tensor or image, its staging memory into its device memory.
 * HOST, DEVICE_AND_HOST and STORAGE memory need no copy and are skipped, as in Kompute. A sub-range of a tensor can be
 * synced alone with {@link #OpSyncDevice(Tensor, long, long)}, which Kompute lacks.
 */
public final class OpSyncDevice extends Op {
    private final List<Region> regions;

    public OpSyncDevice(Memory... memories) {
        this(List.of(memories));
    }

    public OpSyncDevice(List<? extends Memory> memories) {
        this.regions = nonEmpty("OpSyncDevice", memories).stream().map(Region::whole).toList();
    }

    /** Syncs only elements [offset, offset + count) of a tensor. */
    public OpSyncDevice(Tensor tensor, long offset, long count) {
        tensor.checkRange("OpSyncDevice", offset, count);
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
                rec.copyBuffer(t.staging.buffer(), t.staging.offset() + r.byteOffset(), t.buffer, r.byteOffset(), r.byteCount());
            } else {
                rec.copyBufferToImage(m.staging.buffer(), m.staging.offset(), (Image) m);
            }
        }
    }

    @Override
    List<Memory> memories() {
        return regions.stream().map(Region::memory).toList();
    }
}

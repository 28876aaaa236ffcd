package io.jkompute;

/** A run of elements of one tensor, or a whole image: what the sync operations move. */
record Region(Memory memory, long offset, long count) {
    static Region whole(Memory m) {
        return new Region(m, 0, m.size());
    }

    /** Whole regions of each memory object, checked non-empty and non-null. */
    static java.util.List<Region> wholes(String op, java.util.List<? extends Memory> memories) {
        return Op.nonEmpty(op, memories).stream().map(Region::whole).toList();
    }

    /**
     * Records the staging↔device copies of DEVICE memory; other memory types have nothing to move.
     *
     * @param toDevice staging → device (OpSyncDevice), else device → staging (OpSyncLocal)
     */
    static void recordSync(CommandRecorder rec, java.util.List<Region> regions, boolean toDevice) {
        rec.beforeTransfer();
        for (Region r : regions) {
            Memory m = r.memory();
            if (m.memoryType != MemoryType.DEVICE) {
                continue;
            }
            long staging = m.staging.offset() + r.byteOffset();
            if (m instanceof Tensor t && toDevice) {
                rec.copyBuffer(t.staging.buffer(), staging, t.buffer, r.byteOffset(), r.byteCount());
            } else if (m instanceof Tensor t) {
                rec.copyBuffer(t.buffer, r.byteOffset(), t.staging.buffer(), staging, r.byteCount());
            } else if (toDevice) {
                rec.copyBufferToImage(m.staging.buffer(), m.staging.offset(), (Image) m);
            } else {
                rec.copyImageToBuffer((Image) m, m.staging.buffer(), m.staging.offset());
            }
        }
    }

    long byteOffset() {
        return offset * memory.elementSize();
    }

    long byteCount() {
        return count * memory.elementSize();
    }
}

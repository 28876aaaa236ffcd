package io.jkompute;

/** A run of elements of one tensor, or a whole image: what the sync operations move. */
record Region(Memory memory, long offset, long count) {
    static Region whole(Memory m) {
        return new Region(m, 0, m.size());
    }

    long byteOffset() {
        return offset * memory.elementSize();
    }

    long byteCount() {
        return count * memory.elementSize();
    }
}

package io.jkompute.graph;

import java.lang.foreign.MemorySegment;

/**
 * Memory handed out by an {@link Allocator}. Closing it returns it; closing twice is harmless. A host block has
 * a {@link #segment()}; a device block carries its device object through {@link #deviceObject()}.
 */
public interface MemoryBlock extends AutoCloseable {
    /** The size of the block in bytes. */
    long byteSize();

    /** Where the block lives: host, device or system memory. */
    StorageType storage();

    /** Host view of the memory; throws for device blocks. */
    MemorySegment segment();

    /** The device-side object (a jkompute core Tensor) for device blocks; null for host blocks. */
    default Object deviceObject() {
        return null;
    }

    @Override
    void close();
}

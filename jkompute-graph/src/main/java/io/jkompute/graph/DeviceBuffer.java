package io.jkompute.graph;

import io.jkompute.DataType;

/**
 * A buffer of device memory from a {@link DeviceMemoryProvider}: a block of a device {@code BlockMemoryPool} or one
 * allocation of an {@code UnboundedAllocator}. It is the {@link MemoryBlock#deviceObject()} of such blocks, and it
 * makes the graph tensor that views its first bytes ({@link GraphTensor#allocate}).
 */
public interface DeviceBuffer extends AutoCloseable {
    /** Bytes in the buffer. */
    long byteSize();

    /**
     * A dense tensor of {@code shape} and {@code type} over the first bytes of this buffer; closing the tensor closes
     * {@code owner} (e.g. returns the pool block), not this buffer.
     */
    GraphTensor tensor(DataType type, long[] shape, AutoCloseable owner);

    /** Frees the memory. */
    @Override
    void close();
}

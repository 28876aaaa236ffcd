package io.jkompute.graph;

import io.jkompute.DataType;
import java.util.Optional;

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

    /**
     * This buffer as another process on the same device can open it ({@link DeviceMemoryProvider#openIpcImports}):
     * opaque bytes in the provider's own encoding (for CUDA: the device's UUID, the CUDA IPC handle and the
     * allocation's size), or empty where the memory cannot be shared between processes (the default, e.g. Vulkan
     * memory). The work queued on the buffer so far has finished when this returns, so the other process reads the
     * bytes as they are now; the buffer must stay allocated until that process says it is done with them.
     */
    default Optional<byte[]> ipcHandle() {
        return Optional.empty();
    }

    /** Frees the memory. */
    @Override
    void close();
}

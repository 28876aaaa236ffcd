package io.jkompute.graph;

import java.util.Optional;

/**
 * Device memory that is not Vulkan memory, supplied by an extension (jkompute-graph-cuda supplies CUDA memory).
 * A device allocator ({@code BlockMemoryPool} or {@code UnboundedAllocator} asked for storage 1) that names no
 * {@code VulkanDevice} asks the registry's providers, in registration order, whether they serve the graph; the
 * first that does hands out its memory. An extension registers one with
 * {@link ComponentRegistry#registerDeviceMemory(DeviceMemoryProvider)}.
 */
public interface DeviceMemoryProvider {
    /** A name for messages, e.g. "CUDA". */
    String name();

    /**
     * Whether device storage in {@code graph} is this provider's memory. Called when a device allocator initializes,
     * after every parameter of the graph is bound. Throws {@link IllegalStateException} with one line when the graph
     * requires this provider (e.g. names a GPUDevice) but it cannot run on this machine.
     */
    boolean serves(Graph graph);

    /** {@code bytes} of device memory for {@code graph}, contents undefined; closing the buffer frees it. */
    DeviceBuffer allocate(Graph graph, long bytes);

    /**
     * The identity of the device that holds {@code graph}'s memory (for CUDA: its 16-byte UUID), when this provider
     * can share that memory with other processes ({@link DeviceBuffer#ipcHandle()}); empty (the default) when it
     * cannot. Two processes whose identities are equal can pass device buffers to each other without host memory.
     */
    default Optional<byte[]> ipcDevice(Graph graph) {
        return Optional.empty();
    }

    /**
     * A new cache of other processes' device buffers opened in {@code graph}'s device, for copying their bytes into
     * this process's buffers. Closing it unmaps every buffer it opened.
     *
     * @throws UnsupportedOperationException when this provider cannot share memory between processes (the default)
     */
    default IpcImports openIpcImports(Graph graph) {
        throw new UnsupportedOperationException(name() + " device memory cannot be shared between processes");
    }
}

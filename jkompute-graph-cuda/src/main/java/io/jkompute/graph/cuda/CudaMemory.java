package io.jkompute.graph.cuda;

import io.jkompute.DataType;
import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.DType;
import io.jkompute.cuda.GpuArray;
import io.jkompute.cuda.Stream;
import java.util.concurrent.atomic.AtomicReference;
import io.jkompute.graph.DeviceBuffer;
import io.jkompute.graph.DeviceMemoryProvider;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphTensor;
import java.util.function.Supplier;

/**
 * CUDA memory as the graph's device memory. An app runs on CUDA when it has a {@link GPUDevice} (then CUDA must be
 * usable here, or loading stops with one line), or when it has none and CUDA is usable; device pools that name a
 * VulkanDevice keep Vulkan memory either way. Memory is on the app's GPUDevice, else device 0.
 */
final class CudaMemory implements DeviceMemoryProvider {
    @Override
    public String name() {
        return "CUDA";
    }

    @Override
    public boolean serves(Graph graph) {
        if (GPUDevice.of(graph) != null) {
            GPUDevice.requireCuda("the app's GPUDevice");
            return true;
        }
        return Cuda.unavailableReason() == null;
    }

    @Override
    public DeviceBuffer allocate(Graph graph, long bytes) {
        int device = GPUDevice.defaultDevice(graph);
        GpuArray block = onDevice(device, () -> GpuArray.empty(DType.UINT8, Math.max(1, bytes)));
        return new Buffer(block, bytes, new AtomicReference<>());
    }

    /** Runs {@code action} with {@code device} current on this thread, then restores the thread's device. */
    static <T> T onDevice(int device, Supplier<T> action) {
        int before = Cuda.getDevice();
        if (before == device) {
            return action.get();
        }
        Cuda.setDevice(device);
        try {
            return action.get();
        } finally {
            Cuda.setDevice(before);
        }
    }

    /**
     * Waits for the work queued on {@code s}; when its pool has already destroyed it (its queued work still runs),
     * waits for the whole device instead.
     */
    static void await(Stream s) {
        try {
            s.synchronize();
        } catch (IllegalStateException closed) {
            onDevice(s.device(), () -> {
                Cuda.synchronize();
                return null;
            });
        }
    }

    /** One cuMemAlloc'd block; tensors are typed views of its start. */
    private record Buffer(GpuArray block, long byteSize, AtomicReference<Stream> lastStream) implements DeviceBuffer {
        @Override
        public GraphTensor tensor(DataType type, long[] shape, AutoCloseable owner) {
            return new CudaDeviceTensor(block.view(DType.of(type), shape), type, shape, owner, lastStream);
        }

        /** Frees the block once the work last queued on it has run. */
        @Override
        public void close() {
            Stream s = lastStream.getAndSet(null);
            if (s != null) {
                await(s);
            }
            block.close();
        }
    }
}

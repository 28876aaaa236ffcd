package io.jkompute.graph.cuda;

import io.jkompute.DataType;
import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.DType;
import io.jkompute.cuda.GpuArray;
import io.jkompute.cuda.IpcMemory;
import io.jkompute.cuda.Stream;
import java.util.concurrent.atomic.AtomicReference;
import io.jkompute.graph.DeviceBuffer;
import io.jkompute.graph.DeviceMemoryProvider;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.IpcImports;
import java.nio.ByteBuffer;
import java.util.Optional;
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
        return new Buffer(block, bytes, new AtomicReference<>(), new AtomicReference<>());
    }

    /** The 16-byte UUID of the graph's GPU: CUDA memory (from cuMemAlloc) can always be shared by CUDA IPC. */
    @Override
    public Optional<byte[]> ipcDevice(Graph graph) {
        if (Cuda.unavailableReason() != null) return Optional.empty();
        var uuid = Cuda.device(GPUDevice.defaultDevice(graph)).uuid();
        return Optional.of(ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits()).array());
    }

    @Override
    public IpcImports openIpcImports(Graph graph) {
        return new CudaIpcImports(GPUDevice.defaultDevice(graph));
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

    /**
     * One cuMemAlloc'd block; tensors are typed views of its start. Its IPC handle is made once, on first export
     * (the same allocation always has the same handle).
     */
    record Buffer(GpuArray block, long byteSize, AtomicReference<Stream> lastStream, AtomicReference<byte[]> exported)
            implements DeviceBuffer {
        @Override
        public GraphTensor tensor(DataType type, long[] shape, AutoCloseable owner) {
            return new CudaDeviceTensor(block.view(DType.of(type), shape), type, shape, owner, lastStream, this);
        }

        /** Waits for the work last queued on the block (by a tensor over it), if any. */
        void awaitLastWork() {
            Stream s = lastStream.get();
            if (s != null) {
                await(s);
            }
        }

        @Override
        public Optional<byte[]> ipcHandle() {
            awaitLastWork();
            // a synchronous copy from pageable host memory returns before its DMA has landed (CUDA documents this):
            // the legacy default stream orders it for this process only, so the process that opens the handle must
            // not start reading before it is done
            onDevice(block.device(), () -> {
                Stream.defaultStream().synchronize();
                return null;
            });
            byte[] h = exported.get();
            if (h == null) {
                h = onDevice(block.device(), () -> new CudaIpcHandle(Cuda.device(block.device()).uuid(),
                        IpcMemory.handleOf(block), block.nbytes()).encode());
                exported.set(h);
            }
            return Optional.of(h.clone());
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

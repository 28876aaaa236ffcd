package io.jkompute.graph.cuda;

import io.jkompute.DataType;
import io.jkompute.cuda.DType;
import io.jkompute.cuda.GpuArray;
import io.jkompute.cuda.Stream;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.DeviceTensor;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.StorageType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A graph tensor in CUDA device memory (storage 1 where the app runs on CUDA): a dense jkompute-cuda
 * {@link GpuArray} view of a pool block or an unbounded allocation, with the stream its contents are being written on.
 *
 * <p>A codelet that queues work reading or writing the tensor on a stream (from a {@link CudaStreamPool}) records it
 * with {@link #setStream} (after ordering it after the stream recorded before, e.g. {@link #synchronize()}), and a
 * producer adds the {@link CudaStreamId} to the message it publishes; a consumer orders its own work after that
 * stream, or waits for it ({@link CudaStreamSync}). The stream belongs to the memory block, not to one tensor: when a
 * pool lends the block again, {@link #copyFromHost} and {@link #toHost} wait for the work last queued on it, so a
 * block never changes under a kernel that still reads it. Without a stream the contents are complete whenever the
 * tensor is seen (synchronous copies, work on the legacy default stream).
 * <pre>{@code
 * CudaDeviceTensor x = CudaDeviceTensor.of(message.get(GraphTensor.class, "x"));
 * kernel.launch(x.stream(), grid, block, 0, x.array(), n);   // GpuArray, its device pointer, its stream
 * }</pre>
 */
public final class CudaDeviceTensor implements GraphTensor {
    private final GpuArray array;
    private final DataType dataType;
    private final long[] shape;
    private final AutoCloseable owner;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The block's last stream: shared by every tensor the block is lent to, so reuse waits for earlier work. */
    private final AtomicReference<Stream> stream;

    /** The pool block or allocation whose start this tensor views, when it is one (null: imported or wrapped memory). */
    private final CudaMemory.Buffer buffer;

    CudaDeviceTensor(GpuArray array, DataType dataType, long[] shape, AutoCloseable owner,
            AtomicReference<Stream> stream) {
        this(array, dataType, shape, owner, stream, null);
    }

    CudaDeviceTensor(GpuArray array, DataType dataType, long[] shape, AutoCloseable owner,
            AtomicReference<Stream> stream, CudaMemory.Buffer buffer) {
        this.buffer = buffer;
        this.array = array;
        this.stream = stream;
        this.dataType = dataType;
        this.shape = shape.clone();
        this.owner = owner;
    }

    /** The tensor as a CUDA device tensor; fails with a clear message for host and Vulkan tensors. */
    public static CudaDeviceTensor of(GraphTensor tensor) {
        if (tensor instanceof CudaDeviceTensor c) {
            return c;
        }
        throw new IllegalArgumentException(tensor + " is " + (tensor == null ? "missing"
                : tensor.storage() == StorageType.DEVICE
                        ? "a Vulkan device tensor, not CUDA memory (a pool with a VulkanDevice makes these; reach it "
                                + "from CUDA with CudaDeviceTensor.fromVulkan, or give the pool no device)"
                        : "a host tensor, not CUDA memory"));
    }

    /**
     * A dense tensor from a device allocator whose memory is CUDA memory (a BlockMemoryPool or UnboundedAllocator
     * with storage_type 1 in an app that runs on CUDA); closing it returns the memory.
     */
    public static CudaDeviceTensor allocate(Allocator allocator, DataType type, long... shape) {
        GraphTensor t = GraphTensor.allocate(allocator, StorageType.DEVICE, type, shape);
        if (t instanceof CudaDeviceTensor c) {
            return c;
        }
        t.close();
        throw new IllegalArgumentException(allocator + " hands out Vulkan device memory, not CUDA memory (it names a "
                + "VulkanDevice)");
    }

    /**
     * A Vulkan device tensor seen from CUDA without a copy, through jkompute-cuda's Vulkan interop
     * ({@link GpuArray#fromTensor}): waits on the host until the Vulkan work that wrote it ({@link DeviceTensor#ready()})
     * has finished, then imports its memory. Closing the result waits for the work recorded on its {@link #stream()}
     * and releases the import (not the Vulkan tensor, which must stay open meanwhile). The tensor must be exportable:
     * a pool whose VulkanDevice has {@code export_memory: true} makes such blocks.
     */
    public static CudaDeviceTensor fromVulkan(DeviceTensor tensor) {
        if (!tensor.tensor().isExportable()) {
            throw new IllegalArgumentException(tensor + " is not exportable Vulkan memory; give its pool's "
                    + "VulkanDevice 'export_memory: true' so CUDA can import it");
        }
        tensor.ready().await();
        GpuArray imported = GpuArray.fromTensor(tensor.tensor());
        try {
            AtomicReference<Stream> last = new AtomicReference<>();
            GpuArray view = imported.view(DType.of(tensor.dataType()), tensor.shape());
            return new CudaDeviceTensor(view, tensor.dataType(), tensor.shape(), () -> {
                Stream s = last.getAndSet(null);
                if (s != null) {
                    CudaMemory.await(s);
                }
                imported.close();
            }, last);
        } catch (RuntimeException e) {
            imported.close();
            throw e;
        }
    }

    /**
     * CUDA memory that another library owns (e.g. an array imported with {@link GpuArray#fromDlpack}) as a tensor;
     * closing the tensor closes {@code owner}. The array's element type must match {@code type}.
     */
    public static CudaDeviceTensor wrap(GpuArray array, DataType type, long[] shape, AutoCloseable owner) {
        if (array.dtype() != DType.of(type)) {
            throw new IllegalArgumentException("array of " + array.dtype() + " as a " + type + " tensor");
        }
        return new CudaDeviceTensor(array, type, shape, owner, new AtomicReference<>());
    }

    /** The elements as a GpuArray view (valid until this tensor is closed; closing the view does nothing). */
    public GpuArray array() {
        return array;
    }

    /** The device address of the first element. */
    public long pointer() {
        return array.ptr();
    }

    /** The CUDA element type. */
    public DType dtype() {
        return array.dtype();
    }

    /** The CUDA device holding the memory. */
    public int device() {
        return array.device();
    }

    /** The stream the contents are being written on, or null when none was recorded. */
    public Stream stream() {
        return stream.get();
    }

    /** The native handle of {@link #stream()}; 0 (the legacy default stream) when none was recorded. */
    public long streamHandle() {
        Stream s = stream.get();
        return s == null ? 0 : s.handle();
    }

    /** Records the stream that work reading or writing this tensor was last queued on (null: none pending). */
    public void setStream(Stream stream) {
        this.stream.set(stream);
    }

    /** Waits until the work queued on {@link #stream()} has run (nothing when there is none). */
    public void synchronize() {
        Stream s = stream.get();
        if (s != null) {
            CudaMemory.await(s);
        }
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    @Override
    public DataType dataType() {
        return dataType;
    }

    @Override
    public long[] strides() {
        return GraphTensor.denseStrides(shape, dataType.byteSize());
    }

    @Override
    public StorageType storage() {
        return StorageType.DEVICE;
    }

    /**
     * The block this tensor views, as another process on the same GPU opens it: its CUDA IPC handle (after the work
     * last queued on the block) and offset 0. Empty for memory jkompute did not allocate (imported Vulkan memory,
     * wrapped arrays), whose owner may not allow it to be shared.
     */
    @Override
    public java.util.Optional<io.jkompute.graph.IpcRegion> ipcRegion() {
        if (buffer == null || closed.get()) {
            return java.util.Optional.empty();
        }
        var uuid = io.jkompute.cuda.Cuda.device(array.device()).uuid();
        byte[] device = java.nio.ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits()).array();
        return buffer.ipcHandle().map(h -> new io.jkompute.graph.IpcRegion(device, h, 0));
    }

    /** Copies the contents to a new host segment, after the work queued on {@link #stream()}. */
    @Override
    public MemorySegment toHost(Arena arena) {
        MemorySegment out = arena.allocate(Math.max(1, byteSize()), 8).asSlice(0, byteSize());
        synchronize();
        array.get(out);
        return out;
    }

    /**
     * Replaces the contents with {@code bytes} (heap or native), after the work queued on {@link #stream()}; the copy
     * has finished when this returns.
     */
    @Override
    public void copyFromHost(MemorySegment bytes) {
        if (bytes.byteSize() != byteSize()) {
            throw new IllegalArgumentException("copy of " + bytes.byteSize() + " bytes into a " + byteSize()
                    + "-byte tensor");
        }
        synchronize();
        array.set(bytes);
    }

    /** Returns the memory (to its pool); closing twice is harmless. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true) && owner != null) {
            try {
                owner.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing the memory of " + this + " failed", e);
            }
        }
    }

    @Override
    public String toString() {
        return "CudaDeviceTensor" + Arrays.toString(shape) + " " + dataType + " on device " + array.device();
    }
}

package io.jkompute.graph;

import io.jkompute.DataType;
import io.jkompute.Sequence;
import io.jkompute.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * A tensor on the GPU: a jkompute core Vulkan {@link Tensor}, seen with a graph shape and element type (which may
 * be a view of a larger pooled buffer). Kernel codelets bind {@link #tensor()} directly.
 *
 * <p>Copies are started, not waited for, so frames overlap on the GPU: {@link #upload} and a kernel that wrote the
 * tensor set {@link #ready()}, the point on the GPU's timeline after which the contents are valid; a kernel waits
 * for it with {@link Sequence#nextWaitsFor}, and a consumer starts the read-back early with {@link #prefetchToHost()}
 * and reads {@link #hostView()} when it needs the bytes.
 */
public final class DeviceTensor implements GraphTensor {
    private final Tensor tensor;
    private final long[] shape;
    private final DataType dataType;
    private final AutoCloseable owner;
    /** The contents are valid on the GPU once this is reached. */
    private volatile Sequence.Point ready = Sequence.Point.REACHED;
    /** The read-back started by prefetchToHost for the current contents, or null. */
    private Sequence.Point prefetched;
    /**
     * Whether the staging slice holds the contents: true after an upload until the GPU may have written the tensor
     * (a kernel's point recorded, or the core tensor taken, which is how a kernel binds it). A tensor uploaded and
     * then only read on the host (sent over a link, compared) needs no read-back then.
     */
    private volatile boolean stagedIsCurrent;

    private DeviceTensor(Tensor tensor, DataType dataType, long[] shape, AutoCloseable owner) {
        this.tensor = Objects.requireNonNull(tensor);
        this.dataType = dataType;
        this.shape = shape.clone();
        this.owner = owner;
        if (dataType.byteSize() == 0) {
            throw new IllegalArgumentException("device tensors need a fixed-size element type, not " + dataType);
        }
        if (byteSize() > tensor.byteSize()) {
            throw new IllegalArgumentException("tensor of shape " + Arrays.toString(shape) + " " + dataType + " needs "
                    + byteSize() + " bytes, the device buffer has " + tensor.byteSize());
        }
    }

    /** Takes a block from a device allocator (e.g. a BlockMemoryPool with storage_type 1); closing returns it. */
    public static DeviceTensor allocate(Allocator allocator, DataType type, long... shape) {
        long bytes = Math.multiplyExact(GraphTensor.elementCount(shape), type.byteSize());
        MemoryBlock block = allocator.allocate(bytes, StorageType.DEVICE);
        if (!(block.deviceObject() instanceof Tensor t)) {
            Object device = block.deviceObject();
            block.close();
            if (device instanceof DeviceBuffer) {
                throw new IllegalArgumentException(allocator + " hands out device memory that is not Vulkan memory "
                        + "(e.g. CUDA); allocate with GraphTensor.allocate, or name a VulkanDevice in the pool");
            }
            throw new IllegalArgumentException(allocator + " does not hand out device memory; give it storage_type 1");
        }
        return new DeviceTensor(t, type, shape, block);
    }

    /** Wraps a core tensor with its own shape and type; closing this closes the core tensor. */
    public static DeviceTensor of(Tensor tensor) {
        return new DeviceTensor(tensor, tensor.dataType(), tensor.shape(), tensor);
    }

    /**
     * Wraps a core tensor whose lifetime {@code owner} manages: closing this tensor closes {@code owner} once (e.g.
     * hands the buffer back to a cache for reuse) instead of the core tensor.
     */
    public static DeviceTensor owned(Tensor tensor, DataType type, long[] shape, AutoCloseable owner) {
        return new DeviceTensor(tensor, type, shape, java.util.Objects.requireNonNull(owner, "owner"));
    }

    /** Wraps a core tensor that someone else owns and closes. */
    public static DeviceTensor view(Tensor tensor, DataType type, long... shape) {
        return new DeviceTensor(tensor, type, shape, null);
    }


    /** The core Vulkan tensor (bind it in an Algorithm). */
    public Tensor tensor() {
        if (stagedIsCurrent) {
            // whoever binds it may write it on the GPU: the staged bytes may be stale from here on
            synchronized (tensor) {
                stagedIsCurrent = false;
            }
        }
        return tensor;
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
     * Copies host bytes into the GPU buffer: a write into the tensor's staging slice, then the tensor's own recorded
     * sync, started and not waited for ({@link #ready()} is its point), so pooled blocks that come round again cost
     * one submit each time, neither a recording nor a wait. Work on the same queue is ordered after the copy; a kernel
     * on another queue waits for {@link #ready()}. Earlier copies of this buffer are waited for before the staging
     * slice is written again.
     */
    public void upload(MemorySegment bytes) {
        if (bytes.byteSize() != byteSize()) {
            throw new IllegalArgumentException("upload of " + bytes.byteSize() + " bytes into a " + byteSize()
                    + "-byte tensor");
        }
        synchronized (tensor) {
            tensor.awaitSyncs();
            MemorySegment.copy(bytes, 0, tensor.data(), 0, bytes.byteSize());
            prefetched = null;
            ready = tensor.syncDeviceAsync();
            stagedIsCurrent = true;
        }
    }

    /**
     * The point on the GPU's timeline after which this tensor's contents are valid: its upload's, or the kernel's that
     * wrote it ({@link #readyAfter}); {@link Sequence.Point#REACHED} when nothing is pending.
     */
    public Sequence.Point ready() {
        Sequence.Point p = ready;
        // a producer codelet closes its sequences in stop() while its last output may still wait in a queue
        // downstream: that point's work completed when its sequence closed (closing drains it), and a closed
        // sequence's point cannot be waited on (nextWaitsFor refuses it), so it reads as reached
        return p.isReached() ? Sequence.Point.REACHED : p;
    }

    /**
     * Records that the contents are valid once {@code point} is reached: a kernel codelet calls it with its dispatch's
     * point after writing this tensor, so whoever reads it waits on the GPU, not the host.
     */
    public void readyAfter(Sequence.Point point) {
        synchronized (tensor) {
            ready = Objects.requireNonNull(point, "point");
            prefetched = null;
            stagedIsCurrent = false;
        }
    }

    /**
     * Starts copying the contents back to the host (after {@link #ready()}, on the GPU) and returns at once with the
     * point at which {@link #hostView()} holds them; a second call before new contents returns the same point. A
     * consumer that keeps a few frames in flight calls this when a frame arrives and reads it frames later. Right
     * after an {@link #upload} the host already holds the contents: nothing is read back then.
     */
    public Sequence.Point prefetchToHost() {
        synchronized (tensor) {
            if (stagedIsCurrent) {
                return Sequence.Point.REACHED;
            }
            if (prefetched == null) {
                prefetched = tensor.syncLocalAsync(ready());
            }
            return prefetched;
        }
    }

    /**
     * The contents in host memory, without a copy: waits for the read-back ({@link #prefetchToHost()}, started now if
     * it was not) and returns the tensor's staging view. Valid until this tensor is written again or closed.
     */
    public MemorySegment hostView() {
        Sequence.Point p = prefetchToHost();
        p.await();
        MemorySegment data = tensor.data();
        return data.byteSize() == byteSize() ? data : data.asSlice(0, byteSize());
    }

    @Override
    public void copyFromHost(MemorySegment bytes) {
        upload(bytes);
    }

    /** Reads the GPU buffer back (the tensor's recorded sync) into a new host segment. */
    @Override
    public MemorySegment toHost(Arena arena) {
        MemorySegment out = arena.allocate(byteSize(), 8);
        synchronized (tensor) {
            MemorySegment.copy(hostView(), 0, out, 0, byteSize());
        }
        return out;
    }

    @Override
    public void close() {
        MemoryOwner.close(owner, this);
    }

    @Override
    public String toString() {
        return "DeviceTensor" + Arrays.toString(shape) + " " + dataType;
    }
}

package io.jkompute.graph;

import io.jkompute.DataType;
import io.jkompute.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * A tensor on the GPU: a jkompute core Vulkan {@link Tensor}, seen with a graph shape and element type (which may
 * be a view of a larger pooled buffer). Kernel codelets bind {@link #tensor()} directly.
 */
public final class DeviceTensor implements GraphTensor {
    private final Tensor tensor;
    private final long[] shape;
    private final DataType dataType;
    private final AutoCloseable owner;

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
            block.close();
            throw new IllegalArgumentException(allocator + " does not hand out device memory; give it storage_type 1");
        }
        return new DeviceTensor(t, type, shape, block);
    }

    /** Wraps a core tensor with its own shape and type; closing this closes the core tensor. */
    public static DeviceTensor of(Tensor tensor) {
        return new DeviceTensor(tensor, tensor.dataType(), tensor.shape(), tensor);
    }

    /** Wraps a core tensor that someone else owns and closes. */
    public static DeviceTensor view(Tensor tensor, DataType type, long... shape) {
        return new DeviceTensor(tensor, type, shape, null);
    }


    /** The core Vulkan tensor (bind it in an Algorithm). */
    public Tensor tensor() {
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
     * Copies host bytes into the GPU buffer: a staging write, then the tensor's own recorded sync, so pooled blocks
     * that come round again cost one submit each time, not a recording.
     */
    public void upload(MemorySegment bytes) {
        if (bytes.byteSize() != byteSize()) {
            throw new IllegalArgumentException("upload of " + bytes.byteSize() + " bytes into a " + byteSize()
                    + "-byte tensor");
        }
        synchronized (tensor) {
            MemorySegment.copy(bytes, 0, tensor.data(), 0, bytes.byteSize());
            tensor.syncDevice();
        }
    }

    /** Reads the GPU buffer back (the tensor's recorded sync) into a new host segment. */
    @Override
    public MemorySegment toHost(Arena arena) {
        MemorySegment out = arena.allocate(byteSize(), 8);
        synchronized (tensor) {
            tensor.syncLocal();
            MemorySegment.copy(tensor.data(), 0, out, 0, byteSize());
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

package io.jkompute.graph;

import io.jkompute.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An n-dimensional array carried in a {@link Message}: on the host ({@link HostTensor}, a MemorySegment) or on the
 * GPU ({@link DeviceTensor}, a jkompute core Vulkan tensor). Strides are in bytes, as in GXF.
 */
public interface GraphTensor extends AutoCloseable {
    /** The shape, outermost dimension first. */
    long[] shape();

    /** The element type. */
    DataType dataType();

    /** Byte strides, one per dimension. */
    long[] strides();

    /** Where the bytes live: host, device or system memory. */
    StorageType storage();

    /**
     * Allocates a dense tensor of {@code shape} and {@code type} in {@code storage} from {@code allocator}: a
     * {@link HostTensor} for host and system storage; for device storage a {@link DeviceTensor} when the allocator
     * hands out Vulkan memory, or the tensor of a {@link DeviceBuffer} (e.g. a CUDA tensor) when its memory comes from
     * a {@link DeviceMemoryProvider}. Closing the tensor returns the memory.
     */
    static GraphTensor allocate(Allocator allocator, StorageType storage, DataType type, long... shape) {
        if (storage != StorageType.DEVICE) {
            return HostTensor.allocate(allocator, storage, type, shape);
        }
        if (type.byteSize() == 0) {
            throw new IllegalArgumentException("device tensors need a fixed-size element type, not " + type);
        }
        long bytes = Math.multiplyExact(elementCount(shape), type.byteSize());
        MemoryBlock block = allocator.allocate(bytes, StorageType.DEVICE);
        Object device = block.deviceObject();
        try {
            if (device instanceof io.jkompute.Tensor t) {
                return DeviceTensor.owned(t, type, shape, block);
            }
            if (device instanceof DeviceBuffer b) {
                return b.tensor(type, shape, block);
            }
        } catch (RuntimeException e) {
            block.close();
            throw e;
        }
        block.close();
        throw new IllegalArgumentException(allocator + " does not hand out device memory; give it storage_type 1");
    }

    /**
     * Replaces the contents with {@code bytes} (exactly {@link #byteSize()} of them, dense row-major). Host tensors
     * copy; device tensors start the copy (ordered before later work on the tensor's queue or stream).
     */
    default void copyFromHost(MemorySegment bytes) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot be written from the host");
    }

    /** Number of elements (product of the shape). */
    default long elementCount() {
        long n = 1;
        for (long d : shape()) {
            n *= d;
        }
        return n;
    }

    /** Bytes of payload ({@code elementCount × element size}). */
    default long byteSize() {
        return elementCount() * dataType().byteSize();
    }

    /**
     * The contents as host memory: host tensors return their own segment; device tensors copy into a new segment
     * from {@code arena}.
     */
    MemorySegment toHost(Arena arena);

    /** Elements in a shape; refuses negative dimensions and overflow. */
    static long elementCount(long[] shape) {
        long n = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimension in shape " + java.util.Arrays.toString(shape));
            }
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    /** Dense row-major byte strides for a shape. */
    static long[] denseStrides(long[] shape, int elementSize) {
        long[] s = new long[shape.length];
        long acc = elementSize;
        for (int i = shape.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= shape[i];
        }
        return s;
    }

    /**
     * This tensor as another process on the same device can read it without host memory: its buffer's handle and
     * the offset of its bytes there, after the work queued on it so far has finished. Empty (the default) for host
     * tensors and for memory that cannot be shared between processes (e.g. Vulkan memory).
     */
    default java.util.Optional<IpcRegion> ipcRegion() {
        return java.util.Optional.empty();
    }

    /** Releases the memory (back to its pool, when it came from one). */
    @Override
    void close();
}

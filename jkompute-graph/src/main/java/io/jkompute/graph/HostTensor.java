package io.jkompute.graph;

import io.jkompute.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Objects;

/** A tensor in host memory: a MemorySegment with shape, element type and byte strides. */
public final class HostTensor implements GraphTensor {
    private final long[] shape;
    private final DataType dataType;
    private final long[] strides;
    private final StorageType storage;
    private final MemorySegment data;
    private final AutoCloseable owner;

    private HostTensor(long[] shape, DataType dataType, long[] strides, StorageType storage, MemorySegment data,
                       AutoCloseable owner) {
        this.shape = shape.clone();
        this.dataType = Objects.requireNonNull(dataType);
        this.strides = strides.clone();
        this.storage = storage;
        this.data = data;
        this.owner = owner;
        if (dataType.byteSize() == 0) {
            throw new IllegalArgumentException("host tensors need a fixed-size element type, not " + dataType);
        }
        if (shape.length != strides.length) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " and strides "
                    + Arrays.toString(strides) + " differ in rank");
        }
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimension in shape " + Arrays.toString(shape));
            }
        }
        long extent = 0;
        for (int i = 0; i < shape.length; i++) {
            extent += (shape[i] - 1) * strides[i];
        }
        long needed = elementCount() == 0 ? 0 : extent + dataType.byteSize();
        if (needed > data.byteSize()) {
            throw new IllegalArgumentException("tensor of shape " + Arrays.toString(shape) + " " + dataType
                    + " needs " + needed + " bytes, memory has " + data.byteSize());
        }
    }

    /** Allocates a dense tensor from {@code allocator} (its block returns when the tensor is closed). */
    public static HostTensor allocate(Allocator allocator, DataType type, long... shape) {
        return allocate(allocator, StorageType.HOST, type, shape);
    }

    /** Allocates a dense tensor in {@code storage} (HOST or SYSTEM) from {@code allocator}. */
    public static HostTensor allocate(Allocator allocator, StorageType storage, DataType type, long... shape) {
        if (storage == StorageType.DEVICE) {
            throw new IllegalArgumentException("a HostTensor cannot live in device storage; use DeviceTensor");
        }
        long bytes = Math.multiplyExact(GraphTensor.elementCount(shape), type.byteSize());
        MemoryBlock block = allocator.allocate(bytes, storage);
        if (block.storage() == StorageType.DEVICE) {
            block.close();
            throw new IllegalArgumentException(allocator + " hands out device memory; use DeviceTensor");
        }
        return new HostTensor(shape, type, GraphTensor.denseStrides(shape, type.byteSize()), block.storage(),
                block.segment().asSlice(0, bytes), block);
    }

    /** Wraps existing memory (dense strides); the caller keeps ownership of {@code data}. */
    public static HostTensor wrap(MemorySegment data, DataType type, long... shape) {
        return new HostTensor(shape, type, GraphTensor.denseStrides(shape, type.byteSize()), StorageType.SYSTEM, data,
                null);
    }

    /** Wraps existing memory with explicit byte strides. */
    public static HostTensor wrap(MemorySegment data, DataType type, long[] shape, long[] strides) {
        return new HostTensor(shape, type, strides, StorageType.SYSTEM, data, null);
    }

    /**
     * Wraps memory with explicit byte strides that {@code owner} frees when the tensor is closed (a network
     * receiver hands out the buffer a message arrived in this way).
     */
    public static HostTensor wrap(MemorySegment data, DataType type, long[] shape, long[] strides,
                                  AutoCloseable owner) {
        return new HostTensor(shape, type, strides, StorageType.SYSTEM, data, owner);
    }

    /** A float32 tensor holding a copy of {@code values} in GC-managed memory. */
    public static HostTensor of(float[] values, long... shape) {
        MemorySegment seg = Arena.ofAuto().allocate((long) values.length * 4, 4);
        MemorySegment.copy(values, 0, seg, ValueLayout.JAVA_FLOAT, 0, values.length);
        return wrap(seg, DataType.FLOAT32, shape.length == 0 ? new long[] {values.length} : shape);
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
        return strides.clone();
    }

    @Override
    public StorageType storage() {
        return storage;
    }

    /** Whether the elements lie row-major without gaps (dense strides), so bulk copies can move them. */
    public boolean isDense() {
        long expected = dataType.byteSize();
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] > 1 && strides[i] != expected) {
                return false;
            }
            expected *= shape[i];
        }
        return true;
    }

    /** The memory holding the elements. */
    public MemorySegment data() {
        return data;
    }

    @Override
    public MemorySegment toHost(Arena arena) {
        return data;
    }

    @Override
    public void copyFromHost(MemorySegment bytes) {
        if (bytes.byteSize() != byteSize()) {
            throw new IllegalArgumentException("copy of " + bytes.byteSize() + " bytes into a " + byteSize()
                    + "-byte tensor");
        }
        if (!isDense()) {
            throw new IllegalStateException("copyFromHost needs a dense tensor; this one has strides "
                    + Arrays.toString(strides));
        }
        MemorySegment.copy(bytes, 0, data, 0, bytes.byteSize());
    }

    /** The elements as floats in row-major order (float32 tensors only); honours strides. */
    public float[] toFloatArray() {
        if (dataType != DataType.FLOAT32) {
            throw new IllegalStateException("toFloatArray needs a float32 tensor, this one is " + dataType);
        }
        int n = Math.toIntExact(elementCount());
        float[] out = new float[n];
        if (isDense()) {
            // one bulk copy: an element loop cost a frame of the GPU pipeline more than its transfers
            MemorySegment.copy(data, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, out, 0, n);
            return out;
        }
        long[] idx = new long[shape.length];
        for (int i = 0; i < n; i++) {
            long off = 0;
            for (int d = 0; d < shape.length; d++) {
                off += idx[d] * strides[d];
            }
            out[i] = data.get(ValueLayout.JAVA_FLOAT_UNALIGNED, off);
            for (int d = shape.length - 1; d >= 0; d--) {
                if (++idx[d] < shape[d]) {
                    break;
                }
                idx[d] = 0;
            }
        }
        return out;
    }

    @Override
    public void close() {
        MemoryOwner.close(owner, this);
    }

    @Override
    public String toString() {
        return "HostTensor" + Arrays.toString(shape) + " " + dataType + " " + storage;
    }
}

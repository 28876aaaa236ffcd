package io.jkompute.graph;

import io.jkompute.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An n-dimensional array carried in a {@link Message}: on the host ({@link HostTensor}, a MemorySegment) or on the
 * GPU ({@link DeviceTensor}, a jkompute core Vulkan tensor). Strides are in bytes, as in GXF.
 */
public interface GraphTensor extends AutoCloseable {
    long[] shape();

    DataType dataType();

    /** Byte strides, one per dimension. */
    long[] strides();

    StorageType storage();

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

    /** Releases the memory (back to its pool, when it came from one). */
    @Override
    void close();
}

package io.jkompute.graph.std;

import io.jkompute.DataType;
import io.jkompute.graph.GraphTensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Helpers for comparing tensors: dense host copies and element printing. */
final class Tensors {
    private Tensors() {
    }

    /** The tensor's elements in row-major order as dense host bytes (copies only when strided or on the device). */
    static MemorySegment dense(GraphTensor t, Arena arena) {
        MemorySegment src = t.toHost(arena);
        long[] shape = t.shape();
        long[] strides = t.strides();
        int es = t.dataType().byteSize();
        long[] denseStrides = GraphTensor.denseStrides(shape, es);
        if (java.util.Arrays.equals(strides, denseStrides)) {
            return src.asSlice(0, t.byteSize());
        }
        MemorySegment out = arena.allocate(t.byteSize(), 8);
        long n = t.elementCount();
        long[] idx = new long[shape.length];
        for (long i = 0; i < n; i++) {
            long off = 0;
            for (int d = 0; d < shape.length; d++) {
                off += idx[d] * strides[d];
            }
            MemorySegment.copy(src, off, out, i * es, es);
            for (int d = shape.length - 1; d >= 0; d--) {
                if (++idx[d] < shape[d]) {
                    break;
                }
                idx[d] = 0;
            }
        }
        return out;
    }

    static String describe(GraphTensor t, MemorySegment dense, long element) {
        long off = element * t.dataType().byteSize();
        DataType dt = t.dataType();
        return switch (dt) {
            case FLOAT32 -> Float.toString(dense.get(ValueLayout.JAVA_FLOAT_UNALIGNED, off));
            case FLOAT64 -> Double.toString(dense.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, off));
            case INT32, UINT32 -> Integer.toString(dense.get(ValueLayout.JAVA_INT_UNALIGNED, off));
            case INT64, UINT64 -> Long.toString(dense.get(ValueLayout.JAVA_LONG_UNALIGNED, off));
            default -> "byte " + dense.get(ValueLayout.JAVA_BYTE, off);
        };
    }
}

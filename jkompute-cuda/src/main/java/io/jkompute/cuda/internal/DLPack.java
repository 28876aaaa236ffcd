package io.jkompute.cuda.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * The C layout of DLPack's {@code DLManagedTensor} (dlpack.h, ABI stable since 0.2; the "unversioned" struct that
 * PyTorch's, CuPy's and JAX's {@code from_dlpack} accept):
 * <pre>
 * typedef struct { void* data; DLDevice device; int32_t ndim; DLDataType dtype; int64_t* shape; int64_t* strides;
 *                  uint64_t byte_offset; } DLTensor;                                  // 48 bytes
 * typedef struct DLManagedTensor { DLTensor dl_tensor; void* manager_ctx;
 *                                  void (*deleter)(struct DLManagedTensor*); } DLManagedTensor; // 64 bytes
 * </pre>
 * Strides are in elements, not bytes; a NULL strides pointer means C-contiguous.
 */
@SuppressWarnings("restricted") // FFM: binding native code is this class's purpose
public final class DLPack {
    private DLPack() {}

    /** DLDeviceType values. */
    public static final int KDL_CPU = 1, KDL_CUDA = 2, KDL_CUDA_HOST = 3, KDL_CUDA_MANAGED = 13;

    public static final StructLayout DL_TENSOR = MemoryLayout.structLayout(
            ADDRESS.withName("data"),
            JAVA_INT.withName("device_type"),
            JAVA_INT.withName("device_id"),
            JAVA_INT.withName("ndim"),
            JAVA_BYTE.withName("code"),
            JAVA_BYTE.withName("bits"),
            JAVA_SHORT.withName("lanes"),
            ADDRESS.withName("shape"),
            ADDRESS.withName("strides"),
            JAVA_LONG.withName("byte_offset"));

    public static final StructLayout DL_MANAGED_TENSOR = MemoryLayout.structLayout(
            DL_TENSOR.withName("dl_tensor"),
            ADDRESS.withName("manager_ctx"),
            ADDRESS.withName("deleter"));

    public static final long OFF_DATA = off("data"), OFF_DEVICE_TYPE = off("device_type"), OFF_DEVICE_ID = off("device_id"),
            OFF_NDIM = off("ndim"), OFF_CODE = off("code"), OFF_BITS = off("bits"), OFF_LANES = off("lanes"),
            OFF_SHAPE = off("shape"), OFF_STRIDES = off("strides"), OFF_BYTE_OFFSET = off("byte_offset"),
            OFF_MANAGER_CTX = DL_MANAGED_TENSOR.byteOffset(MemoryLayout.PathElement.groupElement("manager_ctx")),
            OFF_DELETER = DL_MANAGED_TENSOR.byteOffset(MemoryLayout.PathElement.groupElement("deleter"));

    private static long off(String field) {
        return DL_TENSOR.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }

    /** What a DLTensor describes, read into Java values. */
    public record Tensor(long data, int deviceType, int deviceId, int code, int bits, int lanes, long[] shape,
                         long[] strides, long byteOffset) {}

    /**
     * Allocates a DLManagedTensor with its shape and strides arrays in {@code arena} and fills it in.
     *
     * @param strides element strides (written out even when contiguous, which every consumer accepts)
     */
    public static MemorySegment write(Arena arena, long data, int deviceType, int deviceId, int code, int bits,
                                      long[] shape, long[] strides, long byteOffset, MemorySegment deleter) {
        MemorySegment m = arena.allocate(DL_MANAGED_TENSOR);
        MemorySegment sh = arena.allocate(JAVA_LONG, Math.max(shape.length, 1));
        MemorySegment st = arena.allocate(JAVA_LONG, Math.max(shape.length, 1));
        for (int i = 0; i < shape.length; i++) {
            sh.setAtIndex(JAVA_LONG, i, shape[i]);
            st.setAtIndex(JAVA_LONG, i, strides[i]);
        }
        m.set(ADDRESS, OFF_DATA, MemorySegment.ofAddress(data));
        m.set(JAVA_INT, OFF_DEVICE_TYPE, deviceType);
        m.set(JAVA_INT, OFF_DEVICE_ID, deviceId);
        m.set(JAVA_INT, OFF_NDIM, shape.length);
        m.set(JAVA_BYTE, OFF_CODE, (byte) code);
        m.set(JAVA_BYTE, OFF_BITS, (byte) bits);
        m.set(JAVA_SHORT, OFF_LANES, (short) 1);
        m.set(ADDRESS, OFF_SHAPE, sh);
        m.set(ADDRESS, OFF_STRIDES, st);
        m.set(JAVA_LONG, OFF_BYTE_OFFSET, byteOffset);
        m.set(ADDRESS, OFF_MANAGER_CTX, MemorySegment.NULL);
        m.set(ADDRESS, OFF_DELETER, deleter);
        return m;
    }

    /** Reads the DLTensor at the start of a DLManagedTensor whose address is {@code managed}. */
    public static Tensor read(MemorySegment managed) {
        if (managed.equals(MemorySegment.NULL)) throw new IllegalArgumentException("DLManagedTensor pointer is NULL");
        MemorySegment m = managed.reinterpret(DL_MANAGED_TENSOR.byteSize());
        int ndim = m.get(JAVA_INT, OFF_NDIM);
        if (ndim < 0 || ndim > 64) throw new IllegalArgumentException("DLTensor ndim " + ndim + " is not plausible");
        MemorySegment sh = m.get(ADDRESS, OFF_SHAPE);
        if (ndim > 0 && sh.equals(MemorySegment.NULL)) throw new IllegalArgumentException("DLTensor shape pointer is NULL");
        long[] shape = ndim == 0 ? new long[0] : sh.reinterpret(8L * ndim).toArray(JAVA_LONG);
        MemorySegment st = m.get(ADDRESS, OFF_STRIDES);
        long[] strides;
        if (st.equals(MemorySegment.NULL)) {
            strides = ArrayLayout.contiguous(shape).strides();
        } else {
            strides = ndim == 0 ? new long[0] : st.reinterpret(8L * ndim).toArray(JAVA_LONG);
        }
        return new Tensor(m.get(ADDRESS, OFF_DATA).address(), m.get(JAVA_INT, OFF_DEVICE_TYPE), m.get(JAVA_INT, OFF_DEVICE_ID),
                Byte.toUnsignedInt(m.get(JAVA_BYTE, OFF_CODE)), Byte.toUnsignedInt(m.get(JAVA_BYTE, OFF_BITS)),
                Short.toUnsignedInt(m.get(JAVA_SHORT, OFF_LANES)), shape, strides, m.get(JAVA_LONG, OFF_BYTE_OFFSET));
    }

    /** The deleter function pointer of a DLManagedTensor (NULL when the producer keeps ownership). */
    public static MemorySegment deleter(MemorySegment managed) {
        return managed.reinterpret(DL_MANAGED_TENSOR.byteSize()).get(ADDRESS, OFF_DELETER);
    }

}

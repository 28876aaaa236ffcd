package io.jkompute;

import static org.lwjgl.util.vma.Vma.*;
import static org.lwjgl.vulkan.VK10.*;

import io.jkompute.internal.StagingPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.util.vma.VmaAllocationCreateInfo;

/**
 * GPU memory a shader can bind: a {@link Tensor} (a buffer) or an {@link Image} (a 2-D storage image).
 * Holds the element type, the memory type and the host view. For {@link MemoryType#DEVICE} the host view is a
 * slice of pooled staging memory, moved to and from the GPU by {@link OpSyncDevice} and {@link OpSyncLocal};
 * for HOST and DEVICE_AND_HOST it is the GPU memory itself; STORAGE memory has none.
 */
public abstract sealed class Memory extends ManagedObject permits Tensor, Image {
    final DataType dataType;
    final int elementSize;
    final long size;
    final MemoryType memoryType;
    StagingPool.Slice staging;
    private Arena hostArena;
    private MemorySegment host;

    Memory(Manager manager, String description, DataType dataType, int elementSize, long size, MemoryType memoryType) {
        super(manager, description);
        this.dataType = dataType;
        this.elementSize = elementSize;
        this.size = size;
        this.memoryType = memoryType;
    }

    /** Makes the host view over {@code address}; a shared arena makes the view unusable (not a crash) after close. */
    final void hostView(long address) {
        hostArena = Arena.ofShared();
        host = MemorySegment.ofAddress(address).reinterpret(byteSize(), hostArena, null);
    }

    /**
     * The action that ends the host view, for the subclass's free action. It must not capture {@code this}: the free
     * action is held by the Manager, and an object reachable from it could never be reported as leaked.
     */
    final Runnable hostViewCloser() {
        Arena arena = hostArena;
        return arena == null ? () -> {} : arena::close;
    }

    /** How VMA allocates memory of a type: host-visible types are mapped for the object's whole life. */
    static VmaAllocationCreateInfo allocationFor(MemoryType memoryType, MemoryStack stack) {
        VmaAllocationCreateInfo aci = VmaAllocationCreateInfo.calloc(stack);
        switch (memoryType) {
            case DEVICE, STORAGE -> aci.usage(VMA_MEMORY_USAGE_AUTO_PREFER_DEVICE);
            case HOST -> aci.usage(VMA_MEMORY_USAGE_AUTO_PREFER_HOST)
                    .flags(VMA_ALLOCATION_CREATE_HOST_ACCESS_RANDOM_BIT | VMA_ALLOCATION_CREATE_MAPPED_BIT)
                    .requiredFlags(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
            case DEVICE_AND_HOST -> aci.usage(VMA_MEMORY_USAGE_AUTO_PREFER_DEVICE)
                    .flags(VMA_ALLOCATION_CREATE_HOST_ACCESS_RANDOM_BIT | VMA_ALLOCATION_CREATE_MAPPED_BIT)
                    .requiredFlags(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
                            | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        }
        return aci;
    }

    /** Number of elements. */
    public final long size() {
        return size;
    }

    /** The element type. */
    public final DataType dataType() {
        return dataType;
    }

    /** Bytes per element (the struct size for {@link DataType#CUSTOM}). */
    public final int elementSize() {
        return elementSize;
    }

    /** size × element size. */
    public final long byteSize() {
        return size * elementSize;
    }

    /** Where the data lives, as chosen at creation. */
    public final MemoryType memoryType() {
        return memoryType;
    }

    /**
     * The host view, zero-copy: writes go straight to staging (DEVICE) or to GPU-visible memory (HOST,
     * DEVICE_AND_HOST). It stops working when this object is closed.
     *
     * @throws IllegalStateException for STORAGE memory, which the host cannot see, or when closed
     */
    public final MemorySegment data() {
        checkOpen();
        if (host == null) {
            throw new IllegalStateException(noHostViewReason());
        }
        return host;
    }

    /** Why {@link #data()} has no view to give. */
    String noHostViewReason() {
        return this + " is STORAGE memory and has no host view; copy it into a DEVICE or HOST tensor with OpCopy to read it";
    }

    // ---- typed copies out ----

    /** The data as floats: float32, or float16 widened. */
    public final float[] toFloatArray() {
        if (dataType == DataType.FLOAT16) {
            short[] bits = new short[(int) checkedLength()];
            copyOut(MemorySegment.ofArray(bits));
            float[] out = new float[bits.length];
            for (int i = 0; i < bits.length; i++) {
                out[i] = Float.float16ToFloat(bits[i]);
            }
            return out;
        }
        requireType("toFloatArray", DataType.FLOAT32);
        float[] out = new float[(int) checkedLength()];
        copyOut(MemorySegment.ofArray(out));
        return out;
    }

    /** A copy of the host-side data of a float64 tensor (sync DEVICE memory first with {@link OpSyncLocal}). */
    public final double[] toDoubleArray() {
        requireType("toDoubleArray", DataType.FLOAT64);
        double[] out = new double[(int) checkedLength()];
        copyOut(MemorySegment.ofArray(out));
        return out;
    }

    /** int32, or uint32 as the same bits (use {@link Integer#toUnsignedLong}). */
    public final int[] toIntArray() {
        requireType("toIntArray", DataType.INT32, DataType.UINT32);
        int[] out = new int[(int) checkedLength()];
        copyOut(MemorySegment.ofArray(out));
        return out;
    }

    /** int64, or uint64 as the same bits. */
    public final long[] toLongArray() {
        requireType("toLongArray", DataType.INT64, DataType.UINT64);
        long[] out = new long[(int) checkedLength()];
        copyOut(MemorySegment.ofArray(out));
        return out;
    }

    /** int16, uint16, or float16's raw bits. */
    public final short[] toShortArray() {
        requireType("toShortArray", DataType.INT16, DataType.UINT16, DataType.FLOAT16);
        short[] out = new short[(int) checkedLength()];
        copyOut(MemorySegment.ofArray(out));
        return out;
    }

    /** int8, uint8, bool, or the raw bytes of a custom struct. */
    public final byte[] toByteArray() {
        requireType("toByteArray", DataType.INT8, DataType.UINT8, DataType.BOOL, DataType.CUSTOM);
        if (byteSize() > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(this + " is too large for a Java array; use data()");
        }
        byte[] out = new byte[(int) byteSize()];
        copyOut(MemorySegment.ofArray(out));
        return out;
    }

    /** A copy of the host-side data of a bool tensor (sync DEVICE memory first with {@link OpSyncLocal}). */
    public final boolean[] toBooleanArray() {
        requireType("toBooleanArray", DataType.BOOL);
        byte[] b = data().toArray(ValueLayout.JAVA_BYTE);
        boolean[] out = new boolean[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = b[i] != 0;
        }
        return out;
    }

    // ---- typed copies in: the element count must match exactly ----

    /** float32, or float16 narrowed (round to nearest even). */
    public final void setData(float[] values) {
        if (dataType == DataType.FLOAT16) {
            requireCount(values.length);
            short[] bits = new short[values.length];
            for (int i = 0; i < values.length; i++) {
                bits[i] = Float.floatToFloat16(values[i]);
            }
            copyIn(MemorySegment.ofArray(bits));
            return;
        }
        requireType("setData(float[])", DataType.FLOAT32);
        requireCount(values.length);
        copyIn(MemorySegment.ofArray(values));
    }

    /** Copies float64 values into the host-side data; the element count must match exactly. */
    public final void setData(double[] values) {
        requireType("setData(double[])", DataType.FLOAT64);
        requireCount(values.length);
        copyIn(MemorySegment.ofArray(values));
    }

    /** int32, or uint32 from the same bits. */
    public final void setData(int[] values) {
        requireType("setData(int[])", DataType.INT32, DataType.UINT32);
        requireCount(values.length);
        copyIn(MemorySegment.ofArray(values));
    }

    /** Copies int64 or uint64 values (the same bits) into the host-side data; the element count must match exactly. */
    public final void setData(long[] values) {
        requireType("setData(long[])", DataType.INT64, DataType.UINT64);
        requireCount(values.length);
        copyIn(MemorySegment.ofArray(values));
    }

    /** int16, uint16, or float16 raw bits. */
    public final void setData(short[] values) {
        requireType("setData(short[])", DataType.INT16, DataType.UINT16, DataType.FLOAT16);
        requireCount(values.length);
        copyIn(MemorySegment.ofArray(values));
    }

    /** int8, uint8, bool (0 or 1), or a custom struct's raw bytes (then the byte count must match). */
    public final void setData(byte[] values) {
        requireType("setData(byte[])", DataType.INT8, DataType.UINT8, DataType.BOOL, DataType.CUSTOM);
        if (values.length != byteSize()) {
            throw new IllegalArgumentException("setData: " + values.length + " bytes given, " + this + " holds "
                    + byteSize() + " bytes");
        }
        copyIn(MemorySegment.ofArray(values));
    }

    /** Copies bool values (stored as bytes 0 or 1) into the host-side data; the element count must match exactly. */
    public final void setData(boolean[] values) {
        requireType("setData(boolean[])", DataType.BOOL);
        requireCount(values.length);
        MemorySegment d = data();
        for (int i = 0; i < values.length; i++) {
            d.set(ValueLayout.JAVA_BYTE, i, values[i] ? (byte) 1 : 0);
        }
    }

    /** Raw bytes of any type; the byte size must match exactly. */
    public final void setData(MemorySegment bytes) {
        if (bytes.byteSize() != byteSize()) {
            throw new IllegalArgumentException("setData: " + bytes.byteSize() + " bytes given, " + this + " holds "
                    + byteSize() + " bytes");
        }
        copyIn(bytes);
    }

    /** Copies {@code src} (byteSize() bytes) into the host view; an image with padded rows copies row by row. */
    void copyIn(MemorySegment src) {
        HostCopy.copy(src, data(), byteSize());
    }

    /** Copies the host view into a heap segment over a new array, in parallel when large. */
    void copyOut(MemorySegment heap) {
        HostCopy.copy(data(), heap, byteSize());
    }

    /** The element count as an array length, or a clear error when a Java array cannot hold it. */
    private long checkedLength() {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(this + " has " + size + " elements, too many for a Java array; use data()");
        }
        return size;
    }

    final void requireType(String what, DataType... allowed) {
        checkOpen();
        for (DataType t : allowed) {
            if (t == dataType) {
                return;
            }
        }
        throw new IllegalArgumentException(what + " needs " + (allowed.length == 1 ? allowed[0]
                : Arrays.toString(allowed)) + " data, but " + this + " holds " + dataType);
    }

    final void requireCount(long n) {
        if (n != size) {
            throw new IllegalArgumentException("setData: " + n + " elements given, " + this + " holds " + size);
        }
    }

    /** Elements in the given range exist: 0 ≤ offset, offset + count ≤ size. */
    final void checkRange(String op, long offset, long count) {
        if (offset < 0 || count <= 0 || offset + count > size) {
            throw new IllegalArgumentException(op + ": range [" + offset + ", " + (offset + count) + ") is outside "
                    + this + " of " + size + " elements");
        }
    }
}

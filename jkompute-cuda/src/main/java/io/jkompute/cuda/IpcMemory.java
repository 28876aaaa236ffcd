package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jkompute.cuda.internal.Driver;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Device memory of another process on the same GPU, mapped into this one with CUDA IPC
 * ({@code cuIpcOpenMemHandle}): the exporting process hands out {@link #handleOf} its {@code cuMemAlloc}'d array (64
 * opaque bytes, sent by any channel), and this process opens it and reads or writes the same device bytes without a
 * copy through host memory. Opening and closing cost about a tenth of a millisecond each, so a receiver opens a
 * handle once per exported allocation and keeps it.
 * <p>
 * CUDA IPC covers memory from {@code cuMemAlloc} only (a {@link GpuArray} made by its constructors, {@code empty},
 * {@code zeros}, {@code toGpu}), not the stream-ordered pool behind array math's results; a handle cannot be opened
 * in the process that exported it. The two processes do not order each other's work: the exporter finishes its
 * writes before it sends the handle, and keeps the memory alive until the importer says it is done.
 * <p>
 * A handle that is forged, from another GPU or from this very process fails {@link #open} with a
 * {@link CudaException}; nothing is mapped then. A handle of an allocation that its exporter has freed is not
 * detected (on an H200 with driver 580 it opened): the exporter must keep the memory until the importer is done.
 */
public final class IpcMemory implements AutoCloseable {
    /** Bytes in a handle ({@code CUipcMemHandle}). */
    public static final int HANDLE_BYTES = 64;

    private final DeviceMemory memory;

    private IpcMemory(DeviceMemory memory) {
        this.memory = memory;
    }

    /**
     * The IPC handle of the allocation that {@code array} owns. The array must start at its allocation (not a view
     * into the middle of one) and its memory must come from {@code cuMemAlloc}.
     *
     * @throws IllegalArgumentException when the array is a view that does not start at its allocation
     * @throws CudaException            when CUDA cannot export the memory (e.g. stream-ordered pool memory)
     */
    public static byte[] handleOf(GpuArray array) {
        DeviceMemory m = array.memory();
        if (array.ptr() != m.address()) {
            throw new IllegalArgumentException("an IPC handle names a whole allocation: the array is a view "
                    + (array.ptr() - m.address()) + " bytes into one");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(Driver.IPC_MEM_HANDLE);
            Cuda.bind(Cuda.context(m.device()));
            Cuda.check(Driver.ipcGetMemHandle(out, m.address()), "cuIpcGetMemHandle");
            return out.toArray(JAVA_BYTE);
        }
    }

    /**
     * Maps the allocation that {@code handle} names into this process, on the calling thread's device.
     *
     * @param byteSize the bytes of the allocation this process may touch (as the exporter declared it)
     * @throws IllegalArgumentException when the handle is not {@value #HANDLE_BYTES} bytes or the size is not positive
     * @throws CudaException            when the driver refuses the handle (forged, another GPU, same process)
     */
    public static IpcMemory open(byte[] handle, long byteSize) {
        if (handle.length != HANDLE_BYTES) {
            throw new IllegalArgumentException("an IPC handle has " + HANDLE_BYTES + " bytes, this one " + handle.length);
        }
        if (byteSize <= 0) throw new IllegalArgumentException("size must be positive, was " + byteSize);
        int dev = Cuda.bindCurrent();
        long p;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment h = arena.allocate(Driver.IPC_MEM_HANDLE);
            MemorySegment.copy(handle, 0, h, JAVA_BYTE, 0, HANDLE_BYTES);
            MemorySegment out = arena.allocate(JAVA_LONG);
            Cuda.bind(Cuda.context(dev)); // after the writes above: see Cuda.bind
            Cuda.check(Driver.ipcOpenMemHandle(out, h, Driver.IPC_LAZY_ENABLE_PEER_ACCESS), "cuIpcOpenMemHandle");
            p = out.get(JAVA_LONG, 0);
        }
        MemorySegment ctx = Cuda.context(dev);
        DeviceMemory m = DeviceMemory.foreign(dev, p, byteSize, "IPC-mapped device memory of " + byteSize + " bytes", () -> {
            Driver.ctxSetCurrent(ctx);
            Driver.ipcCloseMemHandle(p);
        });
        return new IpcMemory(m);
    }

    /** The mapped bytes: copy from and to them like any device memory of this process. */
    public DeviceMemory memory() {
        return memory;
    }

    /** Bytes mapped. */
    public long byteSize() {
        return memory.byteSize();
    }

    /**
     * Queues a copy of {@code bytes} from {@code srcOffset} of the mapped memory into the start of {@code dst} on
     * {@code stream}; range-checked on both sides.
     */
    public void copyTo(GpuArray dst, long srcOffset, long bytes, Stream stream) {
        DeviceMemory d = dst.memory();
        d.copyFromAsync(memory, srcOffset, dst.ptr() - d.address(), bytes, stream);
    }

    /** Unmaps the memory ({@code cuIpcCloseMemHandle}); the exporter's allocation is not affected. */
    @Override
    public void close() {
        memory.close();
    }

    @Override
    public String toString() {
        return "IpcMemory[" + memory + "]";
    }
}

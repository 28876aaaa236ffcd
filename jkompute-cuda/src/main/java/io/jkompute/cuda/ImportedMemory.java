package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jkompute.cuda.internal.ArrayLayout;
import io.jkompute.cuda.internal.Driver;
import io.jkompute.cuda.internal.Leaks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Memory that another API allocated and exported as an opaque POSIX file descriptor (for jkompute tensors:
 * {@link io.jkompute.Tensor#exportMemory()}, or simply {@link GpuArray#fromTensor}) — a Vulkan
 * {@code VkDeviceMemory} exported with {@code VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT} — imported into CUDA
 * ({@code cuImportExternalMemory}). {@link #map} makes a byte range of it a {@link GpuArray}, so a CUDA kernel and a
 * Vulkan shader work on the same bytes without a copy. The two APIs do not order each other's work: finish one
 * side's work (fence / stream synchronize) before the other side touches the bytes.
 * <p>
 * Closing it frees the arrays mapped from it (they become unusable) and then releases the import.
 */
public final class ImportedMemory implements AutoCloseable {
    private static final int CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD = 1, CUDA_EXTERNAL_MEMORY_DEDICATED = 1;
    /** CUDA_EXTERNAL_MEMORY_HANDLE_DESC and _BUFFER_DESC sizes and offsets, checked with offsetof against CUDA 13's cuda.h. */
    private static final long HANDLE_DESC_SIZE = 104, HD_FD = 8, HD_SIZE = 24, HD_FLAGS = 32;
    private static final long BUFFER_DESC_SIZE = 88, BD_OFFSET = 0, BD_SIZE = 8;

    private final int device;
    private final MemorySegment ctx;
    private final MemorySegment handle;
    private final long size;
    private final List<DeviceMemory> mappings = new ArrayList<>();
    private Leaks.Tracked tracked;
    private volatile boolean closed;

    private ImportedMemory(int device, MemorySegment handle, long size) {
        this.device = device;
        this.ctx = Cuda.context(device);
        this.handle = handle;
        this.size = size;
    }

    /**
     * Imports an opaque file descriptor on the calling thread's device, which must be the same GPU that exported it
     * (compare UUIDs: {@link Cuda#deviceWithUuid}). On success CUDA owns {@code fd}: do not use or close it again.
     *
     * @param allocationSize the size of the whole exported allocation ({@code VkMemoryAllocateInfo.allocationSize})
     * @param dedicated      whether the allocation was a dedicated one ({@code VkMemoryDedicatedAllocateInfo})
     */
    public static ImportedMemory importOpaqueFd(int fd, long allocationSize, boolean dedicated) {
        if (fd < 0) throw new IllegalArgumentException("invalid file descriptor " + fd);
        if (allocationSize <= 0) throw new IllegalArgumentException("allocation size must be positive, was " + allocationSize);
        int dev = Cuda.bindCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment desc = arena.allocate(HANDLE_DESC_SIZE, 8);
            desc.set(JAVA_INT, 0, CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD);
            desc.set(JAVA_INT, HD_FD, fd);
            desc.set(JAVA_LONG, HD_SIZE, allocationSize);
            desc.set(JAVA_INT, HD_FLAGS, dedicated ? CUDA_EXTERNAL_MEMORY_DEDICATED : 0);
            MemorySegment out = arena.allocate(ADDRESS);
            Cuda.bind(Cuda.context(dev)); // again: the descriptor writes above may have moved a virtual thread
            Cuda.check(Driver.importExternalMemory(out, desc), "cuImportExternalMemory(fd " + fd + ", " + allocationSize + " bytes)");
            ImportedMemory m = new ImportedMemory(dev, out.get(ADDRESS, 0), allocationSize);
            MemorySegment h = m.handle, ctx = m.ctx;
            m.tracked = Leaks.track(m, "imported external memory of " + allocationSize + " bytes", () -> {
                Driver.ctxSetCurrent(ctx);
                Driver.destroyExternalMemory(h);
            });
            return m;
        }
    }

    /**
     * Imports what {@link io.jkompute.Tensor#exportMemory()} handed out, on the calling thread's device. If the import
     * fails the descriptor is closed here, so it never leaks.
     */
    public static ImportedMemory of(io.jkompute.ExternalMemory exported) {
        try {
            return importOpaqueFd(exported.fd(), exported.allocationSize(), exported.dedicated());
        } catch (RuntimeException e) {
            Driver.closeFd(exported.fd());
            throw e;
        }
    }

    /** Size of the whole imported allocation. */
    public long byteSize() {
        return size;
    }

    /** Maps {@code bytes} bytes from {@code offset} as device memory ({@code cuExternalMemoryGetMappedBuffer}). */
    public synchronized DeviceMemory mapBuffer(long offset, long bytes) {
        if (closed) throw new IllegalStateException("external memory is closed");
        if (offset < 0 || bytes <= 0 || offset > size - bytes) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + offset + "+" + bytes + ") is outside the imported " + size + " bytes");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment desc = arena.allocate(BUFFER_DESC_SIZE, 8);
            desc.set(JAVA_LONG, BD_OFFSET, offset);
            desc.set(JAVA_LONG, BD_SIZE, bytes);
            MemorySegment out = arena.allocate(JAVA_LONG);
            Cuda.bind(ctx); // after the descriptor is written: see Cuda.bind
            Cuda.check(Driver.externalMemoryGetMappedBuffer(out, handle, desc), "cuExternalMemoryGetMappedBuffer");
            long p = out.get(JAVA_LONG, 0);
            MemorySegment c = ctx;
            // a mapped buffer is freed with cuMemFree, before the external memory is destroyed
            DeviceMemory m = DeviceMemory.foreign(device, p, bytes, "mapped external memory of " + bytes + " bytes", () -> {
                Driver.ctxSetCurrent(c);
                Driver.memFree(p);
            });
            mappings.add(m);
            return m;
        }
    }

    /** Maps a C-contiguous array of {@code dtype} and {@code shape} that starts {@code offset} bytes into the allocation. */
    public GpuArray map(long offset, DType dtype, long... shape) {
        long bytes = Math.multiplyExact(ArrayLayout.contiguous(shape).size(), dtype.byteSize());
        return GpuArray.over(mapBuffer(offset, bytes), dtype, shape);
    }

    /** Frees every mapping, then releases the import. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        for (DeviceMemory m : mappings) m.close();
        mappings.clear();
        Cuda.bind(ctx);
        tracked.close();
    }
}

package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;

import io.jkompute.cuda.internal.Driver;
import io.jkompute.cuda.internal.Leaks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Page-locked host memory ({@code cuMemHostAlloc}, portable to all contexts): the DMA engines read and write it
 * directly, so copies run at full PCIe speed and asynchronous copies overlap with kernels. {@link #segment()} is
 * an ordinary {@link MemorySegment}; after {@link #close()} any access to it throws instead of touching freed memory.
 */
@SuppressWarnings("restricted") // FFM: binding native code is this class's purpose
public final class PinnedMemory implements AutoCloseable {
    private static final int CU_MEMHOSTALLOC_PORTABLE = 1;

    private final MemorySegment segment;
    private Leaks.Tracked tracked;
    private volatile boolean closed;

    private PinnedMemory(MemorySegment segment) {
        this.segment = segment;
    }

    /** Allocates {@code bytes} of pinned host memory (contents undefined). */
    public static PinnedMemory allocate(long bytes) {
        if (bytes <= 0) throw new IllegalArgumentException("pinned allocation size must be positive, was " + bytes);
        Cuda.bindCurrent();
        MemorySegment p;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            Cuda.check(Driver.memHostAlloc(out, bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc(" + bytes + " bytes)");
            p = out.get(ADDRESS, 0);
        }
        // a shared arena gives the segment a lifetime that close() ends: later access throws, never crashes
        Arena scope = Arena.ofShared();
        PinnedMemory m = new PinnedMemory(p.reinterpret(bytes, scope, null));
        m.tracked = Leaks.track(m, "pinned host memory of " + bytes + " bytes", () -> {
            scope.close();
            Driver.memFreeHost(p);
        });
        return m;
    }

    /** The memory, valid until {@link #close()}. */
    public MemorySegment segment() {
        if (closed) throw new IllegalStateException("pinned memory is closed");
        return segment;
    }

    /** Size in bytes. */
    public long byteSize() {
        return segment.byteSize();
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        tracked.close();
    }
}

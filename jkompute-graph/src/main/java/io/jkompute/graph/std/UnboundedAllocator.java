package io.jkompute.graph.std;

import io.jkompute.graph.Allocator;
import io.jkompute.graph.DeviceBuffer;
import io.jkompute.graph.DeviceMemoryProvider;
import io.jkompute.graph.MemoryBlock;
import io.jkompute.graph.StorageType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Allocates memory per request, freed when the block closes; always available. Host and system storage get their own
 * arena per block; device storage comes from the graph's {@link DeviceMemoryProvider} (CUDA memory with
 * jkompute-graph-cuda, as GXF's cudaMalloc), and without one a device request is refused.
 */
public final class UnboundedAllocator extends Allocator {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public UnboundedAllocator() {
    }

    private final AtomicLong live = new AtomicLong();
    /** The graph's device memory, looked up at the first device request (the graph does not change after that). */
    private volatile DeviceMemoryProvider deviceMemory;

    @Override
    public boolean isAvailable(long bytes) {
        return true;
    }

    @Override
    public MemoryBlock allocate(long bytes, StorageType storage) {
        if (bytes < 0) {
            throw new IllegalArgumentException("cannot allocate " + bytes + " bytes");
        }
        if (storage == StorageType.DEVICE) {
            return allocateDevice(bytes);
        }
        Arena arena = Arena.ofShared();
        MemorySegment seg = arena.allocate(Math.max(bytes, 1), 64).asSlice(0, bytes);
        live.incrementAndGet();
        AtomicBoolean closed = new AtomicBoolean();
        return new MemoryBlock() {
            @Override
            public long byteSize() {
                return bytes;
            }

            @Override
            public StorageType storage() {
                return storage;
            }

            @Override
            public MemorySegment segment() {
                return seg;
            }

            @Override
            public void close() {
                if (closed.compareAndSet(false, true)) {
                    arena.close();
                    live.decrementAndGet();
                    notifyFreed();
                }
            }
        };
    }

    private MemoryBlock allocateDevice(long bytes) {
        DeviceMemoryProvider provider = deviceMemory;
        if (provider == null) {
            provider = graph().registry().deviceMemory(graph());
            deviceMemory = provider;
        }
        if (provider == null) {
            throw new IllegalArgumentException(path() + " has no device memory here (that needs CUDA: module "
                    + "jkompute-graph-cuda and a CUDA GPU); for Vulkan tensors use a BlockMemoryPool with storage_type 1 "
                    + "and a VulkanDevice");
        }
        DeviceBuffer buffer = provider.allocate(graph(), Math.max(bytes, 1));
        live.incrementAndGet();
        AtomicBoolean closed = new AtomicBoolean();
        return new MemoryBlock() {
            @Override
            public long byteSize() {
                return bytes;
            }

            @Override
            public StorageType storage() {
                return StorageType.DEVICE;
            }

            @Override
            public MemorySegment segment() {
                throw new IllegalStateException("a device block has no host segment");
            }

            @Override
            public Object deviceObject() {
                return buffer;
            }

            @Override
            public void close() {
                if (closed.compareAndSet(false, true)) {
                    buffer.close();
                    live.decrementAndGet();
                    notifyFreed();
                }
            }
        };
    }

    /** Blocks handed out and not yet closed. */
    public long liveBlocks() {
        return live.get();
    }
}

package io.jkompute.graph.std;

import io.jkompute.graph.Allocator;
import io.jkompute.graph.MemoryBlock;
import io.jkompute.graph.StorageType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** Allocates host memory per request (its own arena per block, freed when the block closes). Always available. */
public final class UnboundedAllocator extends Allocator {
    private final AtomicLong live = new AtomicLong();

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
            throw new IllegalArgumentException(path() + " allocates host memory; use a BlockMemoryPool with "
                    + "storage_type 1 (device) for GPU tensors");
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

    /** Blocks handed out and not yet closed. */
    public long liveBlocks() {
        return live.get();
    }
}

package io.jkompute.graph;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Hands out memory blocks for tensors; {@link #isAvailable(long)} feeds MemoryAvailableSchedulingTerm. */
public abstract class Allocator extends Component {
    /**
     * For subclasses; a component's parameters are declared in {@code registerInterface} and set when the graph loads.
     */
    protected Allocator() {
    }

    private final List<Entity> freeListeners = new CopyOnWriteArrayList<>();

    /** Whether {@code bytes} could be allocated now. */
    public abstract boolean isAvailable(long bytes);

    /** Allocates {@code bytes} in the given storage; fails with a clear message when it cannot. */
    public abstract MemoryBlock allocate(long bytes, StorageType storage);

    /** Bytes per block; 1 for byte allocators. */
    public long blockSize() {
        return 1;
    }

    /** The storage this allocator serves by default. */
    public StorageType storageType() {
        return StorageType.HOST;
    }

    /** An entity to notify when memory is freed (event-based scheduling of MemoryAvailable terms). */
    public void addFreeListener(Entity entity) {
        if (!freeListeners.contains(entity)) {
            freeListeners.add(entity);
        }
    }

    /** Implementations call this when a block comes back. */
    protected final void notifyFreed() {
        for (Entity e : freeListeners) {
            e.graph().notify(e);
        }
    }
}

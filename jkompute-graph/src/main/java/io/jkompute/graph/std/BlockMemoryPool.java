package io.jkompute.graph.std;

import io.jkompute.graph.Allocator;
import io.jkompute.graph.DeviceBuffer;
import io.jkompute.graph.DeviceMemoryProvider;
import io.jkompute.graph.MemoryBlock;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.StorageType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code num_blocks} blocks of {@code block_size} bytes allocated up front; every request takes one whole block and
 * fails when it is larger than a block or no block is free. A block returns when the last message holding it is
 * released. {@code storage_type}: 0 host, 1 device, 2 system. Device blocks are Vulkan memory when the pool names
 * a {@code device} (a VulkanDevice); otherwise they come from the graph's {@link DeviceMemoryProvider} (CUDA memory
 * with jkompute-graph-cuda, as in GXF), and without one the pool refuses to start.
 */
public final class BlockMemoryPool extends Allocator {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public BlockMemoryPool() {
    }

    private static final Logger LOG = LoggerFactory.getLogger(BlockMemoryPool.class);
    private Parameter<StorageType> storageType;
    private Parameter<Long> blockSize;
    private Parameter<Long> numBlocks;
    private Parameter<VulkanDevice> device;
    private Arena arena;
    private MemorySegment memory;
    private DeviceBlocks deviceBlocks;
    private DeviceBuffer[] buffers;
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private int total;

    @Override
    protected void registerInterface(Registrar r) {
        storageType = r.parameter("storage_type", ParameterTypes.enumeration(StorageType.class),
                "0 host, 1 device, 2 system", StorageType.HOST);
        blockSize = r.parameter("block_size", ParameterTypes.UINT64, "bytes per block");
        numBlocks = r.parameter("num_blocks", ParameterTypes.UINT64, "number of blocks");
        device = r.optionalHandle("device", VulkanDevice.class, "the Vulkan device for storage_type 1");
    }

    @Override
    protected void initialize() {
        if (blockSize.get() < 1) {
            throw new IllegalArgumentException("parameter 'block_size' must be at least 1");
        }
        if (numBlocks.get() < 1 || numBlocks.get() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("parameter 'num_blocks' must be between 1 and " + Integer.MAX_VALUE);
        }
        total = (int) (long) numBlocks.get();
        if (storageType.get() == StorageType.DEVICE) {
            if (device.isSet()) {
                deviceBlocks = new DeviceBlocks(device.get(), blockSize.get(), total);
            } else {
                DeviceMemoryProvider provider = graph().registry().deviceMemory(graph());
                if (provider == null) {
                    throw new IllegalArgumentException("storage_type 1 (device) needs parameter 'device', a handle to "
                            + "a VulkanDevice component, or CUDA device memory (module jkompute-graph-cuda and a CUDA "
                            + "GPU)");
                }
                buffers = new DeviceBuffer[total];
                try {
                    for (int i = 0; i < total; i++) {
                        buffers[i] = provider.allocate(graph(), blockSize.get());
                    }
                } catch (RuntimeException e) {
                    closeBuffers();
                    throw e;
                }
            }
        } else {
            arena = Arena.ofShared();
            memory = arena.allocate(Math.multiplyExact(blockSize.get(), numBlocks.get()), 64);
        }
        for (int i = 0; i < total; i++) {
            free.add(i);
        }
    }

    @Override
    protected void deinitialize() {
        int inUse;
        synchronized (free) {
            inUse = total - free.size();
        }
        if (inUse > 0) {
            LOG.warn("{}: {} of {} blocks still referenced by messages at shutdown", path(), inUse, total);
        }
        if (deviceBlocks != null) {
            deviceBlocks.close();
        }
        closeBuffers();
        if (arena != null) {
            arena.close();
        }
    }

    private void closeBuffers() {
        if (buffers != null) {
            for (DeviceBuffer b : buffers) {
                if (b != null) {
                    b.close();
                }
            }
            buffers = null;
        }
    }

    @Override
    public boolean isAvailable(long bytes) {
        synchronized (free) {
            return bytes <= (long) free.size() * blockSize.get();
        }
    }

    @Override
    public long blockSize() {
        return blockSize.get();
    }

    @Override
    public StorageType storageType() {
        return storageType.get();
    }

    /** Blocks free now. */
    public int freeBlocks() {
        synchronized (free) {
            return free.size();
        }
    }

    @Override
    public MemoryBlock allocate(long bytes, StorageType storage) {
        if (bytes > blockSize.get()) {
            throw new IllegalArgumentException(path() + ": request of " + bytes + " bytes exceeds block_size "
                    + blockSize.get());
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("cannot allocate " + bytes + " bytes");
        }
        int index;
        synchronized (free) {
            Integer i = free.poll();
            if (i == null) {
                throw new IllegalStateException(path() + ": all " + total + " blocks are in use; add a "
                        + "MemoryAvailableSchedulingTerm or raise num_blocks");
            }
            index = i;
        }
        StorageType st = storageType.get();
        AtomicBoolean closed = new AtomicBoolean();
        MemorySegment seg = memory == null ? null : memory.asSlice(index * blockSize.get(), blockSize.get());
        Object deviceObject = deviceBlocks != null ? deviceBlocks.block(index) : buffers != null ? buffers[index] : null;
        return new MemoryBlock() {
            @Override
            public long byteSize() {
                return blockSize.get();
            }

            @Override
            public StorageType storage() {
                return st;
            }

            @Override
            public MemorySegment segment() {
                if (seg == null) {
                    throw new IllegalStateException("a device block has no host segment");
                }
                return seg;
            }

            @Override
            public Object deviceObject() {
                return deviceObject;
            }

            @Override
            public void close() {
                if (closed.compareAndSet(false, true)) {
                    synchronized (free) {
                        free.add(index);
                    }
                    notifyFreed();
                }
            }
        };
    }
}

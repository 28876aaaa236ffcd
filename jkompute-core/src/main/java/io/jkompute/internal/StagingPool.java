package io.jkompute.internal;

import static io.jkompute.internal.Vk.check;
import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.util.vma.Vma.*;
import static org.lwjgl.vulkan.VK10.*;

import io.jkompute.Logging;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.util.vma.VmaAllocationCreateInfo;
import org.lwjgl.util.vma.VmaAllocationInfo;
import org.lwjgl.util.vma.VmaVirtualAllocationCreateInfo;
import org.lwjgl.util.vma.VmaVirtualBlockCreateInfo;
import org.lwjgl.vulkan.VkBufferCreateInfo;

/**
 * Host-visible staging memory for DEVICE tensors and images, sub-allocated from a few mapped buffers.
 * Kompute gives every tensor its own staging buffer and memory allocation (its issue #420); here a tensor takes a
 * slice of a shared block, so creating or syncing many tensors allocates nothing from the driver.
 *
 * <p>Blocks start small and grow geometrically (1 MiB, 4 MiB, ... 64 MiB, or the request rounded up), because a
 * Manager made for a few small tensors should not pin 64 MiB of host memory: mapping it is what a short-lived Manager
 * would spend most of its life on. One empty block, the largest, is kept for reuse.
 */
public final class StagingPool implements AutoCloseable {
    private static final Logging.Log LOG = Logging.logger(StagingPool.class);
    static final long MIN_BLOCK_SIZE = 1L << 20;
    static final long MAX_BLOCK_SIZE = 64L << 20;
    private static final long ALIGNMENT = 64;

    private final VulkanDevice device;
    private final List<Block> blocks = new ArrayList<>();

    /** One mapped staging buffer and the virtual allocator that hands out its slices. */
    public static final class Block {
        final long buffer;
        final long allocation;
        final long mapped;
        final long size;
        final long virtualBlock;
        int live;

        Block(long buffer, long allocation, long mapped, long size, long virtualBlock) {
            this.buffer = buffer;
            this.allocation = allocation;
            this.mapped = mapped;
            this.size = size;
            this.virtualBlock = virtualBlock;
        }
    }

    /** A slice of a block: the buffer to copy from or to, the offset in it, and the host address. */
    public record Slice(Block block, long virtualAllocation, long offset, long size) {
        public long buffer() {
            return block.buffer;
        }

        public long address() {
            return block.mapped + offset;
        }
    }

    StagingPool(VulkanDevice device) {
        this.device = device;
    }

    /** A zero-filled slice of at least {@code size} bytes. */
    public synchronized Slice allocate(long size) {
        try (MemoryStack stack = stackPush()) {
            VmaVirtualAllocationCreateInfo vi = VmaVirtualAllocationCreateInfo.calloc(stack).size(size).alignment(ALIGNMENT);
            PointerBuffer pAlloc = stack.mallocPointer(1);
            LongBuffer pOffset = stack.mallocLong(1);
            for (Block b : blocks) {
                if (vmaVirtualAllocate(b.virtualBlock, vi, pAlloc, pOffset) == VK_SUCCESS) {
                    return take(b, pAlloc.get(0), pOffset.get(0), size);
                }
            }
            Block b = newBlock(nextBlockSize(size));
            check(vmaVirtualAllocate(b.virtualBlock, vi, pAlloc, pOffset), "vmaVirtualAllocate");
            return take(b, pAlloc.get(0), pOffset.get(0), size);
        }
    }

    private static Slice take(Block b, long alloc, long offset, long size) {
        b.live++;
        Slice s = new Slice(b, alloc, offset, size);
        org.lwjgl.system.MemoryUtil.memSet(s.address(), 0, size);
        return s;
    }

    /** Four times the largest block so far, within [1 MiB, 64 MiB], and at least the request rounded up to 1 MiB. */
    private long nextBlockSize(long request) {
        long largest = 0;
        for (Block b : blocks) {
            largest = Math.max(largest, b.size);
        }
        long grown = Math.min(MAX_BLOCK_SIZE, Math.max(MIN_BLOCK_SIZE, largest * 4));
        return Math.max(grown, roundUp(request, MIN_BLOCK_SIZE));
    }

    public synchronized void free(Slice s) {
        Block b = s.block;
        vmaVirtualFree(b.virtualBlock, s.virtualAllocation);
        b.live--;
        if (b.live > 0) {
            return;
        }
        // of the empty blocks, keep only the largest for reuse
        Block keep = null;
        for (Block o : blocks) {
            if (o.live == 0 && (keep == null || o.size > keep.size)) {
                keep = o;
            }
        }
        for (java.util.Iterator<Block> it = blocks.iterator(); it.hasNext(); ) {
            Block o = it.next();
            if (o.live == 0 && o != keep) {
                it.remove();
                destroy(o);
            }
        }
    }

    /** Sizes of the blocks held now, in bytes (for tests and diagnostics). */
    public synchronized long[] blockSizes() {
        return blocks.stream().mapToLong(x -> x.size).toArray();
    }

    public synchronized int blockCount() {
        return blocks.size();
    }

    private Block newBlock(long size) {
        try (MemoryStack stack = stackPush()) {
            VkBufferCreateInfo bci = VkBufferCreateInfo.calloc(stack).sType$Default().size(size)
                    .usage(VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
            device.sharing(bci, stack);
            VmaAllocationCreateInfo aci = VmaAllocationCreateInfo.calloc(stack).usage(VMA_MEMORY_USAGE_AUTO_PREFER_HOST)
                    .flags(VMA_ALLOCATION_CREATE_HOST_ACCESS_RANDOM_BIT | VMA_ALLOCATION_CREATE_MAPPED_BIT)
                    .requiredFlags(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
            LongBuffer pBuf = stack.mallocLong(1);
            PointerBuffer pAlloc = stack.mallocPointer(1);
            VmaAllocationInfo info = VmaAllocationInfo.calloc(stack);
            check(vmaCreateBuffer(device.allocator(), bci, aci, pBuf, pAlloc, info), "vmaCreateBuffer (staging)");
            VmaVirtualBlockCreateInfo vbi = VmaVirtualBlockCreateInfo.calloc(stack).size(size);
            PointerBuffer pBlock = stack.mallocPointer(1);
            check(vmaCreateVirtualBlock(vbi, pBlock), "vmaCreateVirtualBlock");
            Block b = new Block(pBuf.get(0), pAlloc.get(0), info.pMappedData(), size, pBlock.get(0));
            blocks.add(b);
            LOG.debug("staging block of {} MiB (blocks: {})", size >> 20, blocks.size());
            return b;
        }
    }

    private void destroy(Block b) {
        vmaClearVirtualBlock(b.virtualBlock);
        vmaDestroyVirtualBlock(b.virtualBlock);
        vmaDestroyBuffer(device.allocator(), b.buffer, b.allocation);
    }

    private static long roundUp(long v, long m) {
        return (v + m - 1) / m * m;
    }

    @Override
    public synchronized void close() {
        for (Block b : blocks) {
            destroy(b);
        }
        blocks.clear();
    }
}

package io.jkompute;

import static io.jkompute.internal.Vk.check;
import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.util.vma.Vma.*;
import static org.lwjgl.vulkan.VK10.*;

import io.jkompute.internal.TensorTransfers;
import io.jkompute.internal.VulkanDevice;
import java.lang.foreign.MemorySegment;
import java.nio.LongBuffer;
import java.util.Arrays;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.util.vma.VmaAllocationCreateInfo;
import org.lwjgl.util.vma.VmaAllocationInfo;
import org.lwjgl.vulkan.*;

/**
 * An n-dimensional, row-major array in a Vulkan storage buffer. Made by {@link Manager#tensor}; zero-filled when made
 * without data. Bound to shaders as a storage buffer at the binding given by its position in the algorithm's list.
 */
public final class Tensor extends Memory {
    private final long[] shape;
    final long buffer;
    final long allocation;
    final long bufferSize;
    /** The buffer's GPU address, or 0 where the device has no buffer device addresses. */
    final long address;
    /** Dedicated exportable memory, or 0 when VMA sub-allocated the buffer. */
    private final long exportableMemory;
    private final long exportableSize;
    /** Where the Manager keeps this tensor's recorded-once copies (see {@link TensorTransfers}). */
    private final TensorTransfers.Slot transfers = new TensorTransfers.Slot();

    Tensor(Manager manager, DataType dataType, int elementSize, long[] shape, MemoryType memoryType, MemorySegment init) {
        this(manager, dataType, elementSize, shape, memoryType, init, false);
    }

    Tensor(Manager manager, DataType dataType, int elementSize, long[] shape, MemoryType memoryType, MemorySegment init,
            boolean exportable) {
        super(manager, describe(manager, dataType, shape, memoryType), dataType, elementSize, count(shape), memoryType);
        this.shape = shape.clone();
        VulkanDevice dev = manager.device();
        // rounded to 4 bytes so vkCmdFillBuffer can zero every byte
        this.bufferSize = Math.max(4, (byteSize() + 3) & ~3L);
        try (MemoryStack stack = stackPush()) {
            VkBufferCreateInfo bci = VkBufferCreateInfo.calloc(stack).sType$Default().size(bufferSize)
                    .usage(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT
                            | (dev.bufferDeviceAddress() ? VK12.VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0));
            dev.sharing(bci, stack);
            VmaAllocationCreateInfo aci = allocationFor(memoryType, stack);
            LongBuffer pBuf = stack.mallocLong(1);
            PointerBuffer pAlloc = stack.mallocPointer(1);
            VmaAllocationInfo info = VmaAllocationInfo.calloc(stack);
            if (exportable) {
                long[] mem = createExportable(dev, bci, stack, pBuf);
                exportableMemory = mem[0];
                exportableSize = mem[1];
                pAlloc.put(0, 0L);
            } else {
                exportableMemory = 0;
                exportableSize = 0;
            }
            int r = exportable ? VK_SUCCESS : vmaCreateBuffer(dev.allocator(), bci, aci, pBuf, pAlloc, info);
            if (r == VK_ERROR_FEATURE_NOT_PRESENT && memoryType == MemoryType.DEVICE_AND_HOST) {
                throw new JkomputeException("DEVICE_AND_HOST memory does not exist on " + dev.properties().name()
                        + " (no memory type is both device-local and host-visible); use DEVICE or HOST");
            }
            check(r, "vmaCreateBuffer (" + bufferSize + " bytes, " + memoryType + ")");
            buffer = pBuf.get(0);
            allocation = pAlloc.get(0);
            address = dev.bufferDeviceAddress() ? VK12.vkGetBufferDeviceAddress(dev.handle(),
                    VkBufferDeviceAddressInfo.calloc(stack).sType$Default().buffer(buffer)) : 0;
            long mapped = info.pMappedData();
            if (memoryType.hostVisible()) {
                hostView(mapped);
                org.lwjgl.system.MemoryUtil.memSet(mapped, 0, bufferSize);
            } else if (memoryType == MemoryType.DEVICE) {
                try {
                    staging = dev.staging().allocate(byteSize());
                } catch (RuntimeException e) {
                    destroyBuffer(dev, buffer, allocation, exportableMemory);
                    throw e;
                }
                hostView(staging.address());
            }
        }
        if (init != null && memoryType != MemoryType.STORAGE) {
            HostCopy.copy(init, data(), byteSize());
        }
        long buf = buffer;
        long alloc = allocation;
        long exported = exportableMemory;
        var slice = staging;
        Runnable closeHostView = hostViewCloser();
        track(() -> {
            closeHostView.run();
            destroyBuffer(dev, buf, alloc, exported);
            if (slice != null) {
                dev.staging().free(slice);
            }
        });
        if (memoryType == MemoryType.STORAGE && init != null) {
            manager.initBatch().upload(init, buffer);
        } else if (!memoryType.hostVisible()) {
            manager.initBatch().fill(buffer, bufferSize);
        }
    }

    private static void destroyBuffer(VulkanDevice dev, long buffer, long allocation, long exportable) {
        if (exportable != 0) {
            vkDestroyBuffer(dev.handle(), buffer, null);
            vkFreeMemory(dev.handle(), exportable, null);
        } else {
            vmaDestroyBuffer(dev.allocator(), buffer, allocation);
        }
    }

    /**
     * A buffer in its own device-local allocation that can be exported as an opaque fd. VMA sub-allocates, and an
     * importer would then map a whole shared block; a dedicated allocation gives it exactly this tensor.
     */
    private static long[] createExportable(VulkanDevice dev, VkBufferCreateInfo bci, MemoryStack stack, LongBuffer pBuf) {
        if (!dev.canExportMemory()) {
            throw new JkomputeException(dev.properties().name() + " cannot export memory (no "
                    + KHRExternalMemoryFd.VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME + ")");
        }
        VkDevice d = dev.handle();
        bci.pNext(VkExternalMemoryBufferCreateInfo.calloc(stack).sType$Default()
                .handleTypes(VK11.VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT));
        check(vkCreateBuffer(d, bci, null, pBuf), "vkCreateBuffer (exportable)");
        long buffer = pBuf.get(0);
        VkMemoryRequirements req = VkMemoryRequirements.calloc(stack);
        vkGetBufferMemoryRequirements(d, buffer, req);
        VkPhysicalDeviceMemoryProperties mp = VkPhysicalDeviceMemoryProperties.calloc(stack);
        vkGetPhysicalDeviceMemoryProperties(dev.physical(), mp);
        int type = -1;
        for (int i = 0; i < mp.memoryTypeCount() && type < 0; i++) {
            if ((req.memoryTypeBits() & (1 << i)) != 0
                    && (mp.memoryTypes(i).propertyFlags() & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0) {
                type = i;
            }
        }
        if (type < 0) {
            vkDestroyBuffer(d, buffer, null);
            throw new JkomputeException("no device-local memory type can hold an exportable buffer");
        }
        VkMemoryDedicatedAllocateInfo dedicated = VkMemoryDedicatedAllocateInfo.calloc(stack).sType$Default().buffer(buffer);
        VkMemoryAllocateFlagsInfo flags = VkMemoryAllocateFlagsInfo.calloc(stack).sType$Default()
                .flags(dev.bufferDeviceAddress() ? VK12.VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT : 0).pNext(dedicated.address());
        VkExportMemoryAllocateInfo export = VkExportMemoryAllocateInfo.calloc(stack).sType$Default()
                .handleTypes(VK11.VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT).pNext(flags.address());
        VkMemoryAllocateInfo mai = VkMemoryAllocateInfo.calloc(stack).sType$Default().pNext(export.address())
                .allocationSize(req.size()).memoryTypeIndex(type);
        LongBuffer pMem = stack.mallocLong(1);
        int r = vkAllocateMemory(d, mai, null, pMem);
        if (r != VK_SUCCESS) {
            vkDestroyBuffer(d, buffer, null);
            check(r, "vkAllocateMemory (exportable)");
        }
        r = vkBindBufferMemory(d, buffer, pMem.get(0), 0);
        if (r != VK_SUCCESS) {
            vkDestroyBuffer(d, buffer, null);
            vkFreeMemory(d, pMem.get(0), null);
            check(r, "vkBindBufferMemory");
        }
        return new long[] {pMem.get(0), req.size()};
    }

    /**
     * Exports this tensor's device memory for another API (CUDA) to import; each call returns a new descriptor.
     *
     * @throws IllegalStateException unless made by {@link Manager#exportableTensor}
     */
    public ExternalMemory exportMemory() {
        checkOpen();
        if (exportableMemory == 0) {
            throw new IllegalStateException(this + " was not made exportable: create it with Manager.exportableTensor");
        }
        try (MemoryStack stack = stackPush()) {
            java.nio.IntBuffer fd = stack.mallocInt(1);
            check(KHRExternalMemoryFd.vkGetMemoryFdKHR(manager.device().handle(), VkMemoryGetFdInfoKHR.calloc(stack)
                    .sType$Default().memory(exportableMemory).handleType(VK11.VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT), fd),
                    "vkGetMemoryFdKHR");
            return new ExternalMemory(fd.get(0), exportableSize, 0, byteSize(), true);
        }
    }

    /** Whether {@link #exportMemory()} works on this tensor. */
    public boolean isExportable() {
        return exportableMemory != 0;
    }

    private static String describe(Manager m, DataType t, long[] shape, MemoryType mt) {
        return "Tensor#" + m.nextId() + " " + t + Arrays.toString(shape) + " " + mt;
    }

    static long count(long[] shape) {
        if (shape.length == 0) {
            throw new IllegalArgumentException("a tensor needs a shape of at least one dimension");
        }
        long n = 1;
        for (long d : shape) {
            if (d <= 0) {
                throw new IllegalArgumentException("tensor dimensions must be positive, got " + Arrays.toString(shape));
            }
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    /**
     * Copies the host view to the GPU now and waits: an {@link OpSyncDevice} that the Manager records once for this
     * tensor, so calling it per frame costs one submit, not a recording. Nothing to do for other than DEVICE memory.
     */
    public void syncDevice() {
        checkOpen();
        if (memoryType == MemoryType.DEVICE) {
            manager.transfers().toDevice(this, transfers);
        }
    }

    /** Copies the GPU data to the host view now and waits; like {@link #syncDevice()}, recorded once. */
    public void syncLocal() {
        checkOpen();
        if (memoryType == MemoryType.DEVICE) {
            manager.transfers().toHost(this, transfers);
        }
    }

    /**
     * Starts copying the host view to the GPU and returns at once, with the point at which the copy is done: a
     * dispatch that reads this tensor can wait for it on the GPU ({@link Sequence#nextWaitsFor}), so a stream of
     * frames need not stop for each upload. Work submitted later on the same queue is ordered after the copy anyway
     * (every operation starts with a barrier); the point matters for other queues and for the host. The copy reads
     * the host view while it runs: do not write {@link #data()} again before the point is reached
     * ({@link #awaitSyncs()}). Recorded once, like {@link #syncDevice()}; the staging memory is this tensor's slice of
     * the pool, so nothing is allocated per call. For other than DEVICE memory there is nothing to copy:
     * {@link Sequence.Point#REACHED}.
     */
    public Sequence.Point syncDeviceAsync() {
        checkOpen();
        if (memoryType != MemoryType.DEVICE) {
            return Sequence.Point.REACHED;
        }
        return manager.transfers().toDeviceAsync(this, transfers);
    }

    /** {@link #syncLocalAsync(Sequence.Point)} after nothing more than this queue's earlier work. */
    public Sequence.Point syncLocalAsync() {
        return syncLocalAsync(Sequence.Point.REACHED);
    }

    /**
     * Starts copying the GPU data to the host view and returns at once, with the point at which {@link #data()}
     * holds it: the host can verify frame n while frames n+1, n+2 are still on the GPU. The copy waits on the GPU
     * for {@code after} (e.g. the dispatch that wrote this tensor; {@link Sequence.Point#REACHED} for none). Until
     * the point is reached the host view is being written: read it after {@link Sequence.Point#await()} or
     * {@link #awaitSyncs()}.
     */
    public Sequence.Point syncLocalAsync(Sequence.Point after) {
        checkOpen();
        if (memoryType != MemoryType.DEVICE) {
            after.await();
            return Sequence.Point.REACHED;
        }
        return manager.transfers().toHostAsync(this, transfers, after);
    }

    /**
     * Waits for every copy {@link #syncDeviceAsync()} and {@link #syncLocalAsync()} started on this tensor; after it
     * the host may read and write {@link #data()} freely.
     */
    public void awaitSyncs() {
        manager.transfers().await(transfers);
    }

    /** Frees the copies the Manager recorded for this tensor (after they finished), then the tensor. */
    @Override
    public void close() {
        manager.transfers().release(transfers);
        super.close();
    }

    /** The shape, row-major: the last dimension varies fastest. */
    public long[] shape() {
        return shape.clone();
    }

    /** Number of dimensions. */
    public int rank() {
        return shape.length;
    }

    /** Element strides in bytes for each dimension (row-major). */
    public long[] strides() {
        long[] s = new long[shape.length];
        long acc = elementSize;
        for (int i = shape.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= shape[i];
        }
        return s;
    }
}

package io.jkompute;

import static io.jkompute.internal.Vk.check;
import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.util.vma.Vma.*;
import static org.lwjgl.vulkan.VK10.*;

import io.jkompute.internal.VulkanDevice;
import java.lang.foreign.MemorySegment;
import java.nio.LongBuffer;
import java.util.Arrays;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.util.vma.VmaAllocationCreateInfo;
import org.lwjgl.util.vma.VmaAllocationInfo;
import org.lwjgl.vulkan.VkBufferCreateInfo;

/**
 * An n-dimensional, row-major array in a Vulkan storage buffer. Made by {@link Manager#tensor}; zero-filled when made
 * without data. Bound to shaders as a storage buffer at the binding given by its position in the algorithm's list.
 */
public final class Tensor extends Memory {
    private final long[] shape;
    final long buffer;
    final long allocation;
    final long bufferSize;

    Tensor(Manager manager, DataType dataType, int elementSize, long[] shape, MemoryType memoryType, MemorySegment init) {
        super(manager, describe(manager, dataType, shape, memoryType), dataType, elementSize, count(shape), memoryType);
        this.shape = shape.clone();
        VulkanDevice dev = manager.device();
        // rounded to 4 bytes so vkCmdFillBuffer can zero every byte
        this.bufferSize = Math.max(4, (byteSize() + 3) & ~3L);
        try (MemoryStack stack = stackPush()) {
            VkBufferCreateInfo bci = VkBufferCreateInfo.calloc(stack).sType$Default().size(bufferSize)
                    .usage(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
            dev.sharing(bci, stack);
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
            LongBuffer pBuf = stack.mallocLong(1);
            PointerBuffer pAlloc = stack.mallocPointer(1);
            VmaAllocationInfo info = VmaAllocationInfo.calloc(stack);
            int r = vmaCreateBuffer(dev.allocator(), bci, aci, pBuf, pAlloc, info);
            if (r == VK_ERROR_FEATURE_NOT_PRESENT && memoryType == MemoryType.DEVICE_AND_HOST) {
                throw new JkomputeException("DEVICE_AND_HOST memory does not exist on " + dev.properties().name()
                        + " (no memory type is both device-local and host-visible); use DEVICE or HOST");
            }
            check(r, "vmaCreateBuffer (" + bufferSize + " bytes, " + memoryType + ")");
            buffer = pBuf.get(0);
            allocation = pAlloc.get(0);
            long mapped = info.pMappedData();
            if (memoryType.hostVisible()) {
                hostView(mapped);
                org.lwjgl.system.MemoryUtil.memSet(mapped, 0, bufferSize);
            } else if (memoryType == MemoryType.DEVICE) {
                try {
                    staging = dev.staging().allocate(byteSize());
                } catch (RuntimeException e) {
                    vmaDestroyBuffer(dev.allocator(), buffer, allocation);
                    throw e;
                }
                hostView(staging.address());
            }
        }
        if (init != null && memoryType != MemoryType.STORAGE) {
            MemorySegment.copy(init, 0, data(), 0, byteSize());
        }
        long buf = buffer;
        long alloc = allocation;
        var slice = staging;
        Runnable closeHostView = hostViewCloser();
        track(() -> {
            closeHostView.run();
            vmaDestroyBuffer(dev.allocator(), buf, alloc);
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

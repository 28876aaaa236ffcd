package io.jkompute.internal;

import static io.jkompute.internal.Vk.check;
import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.vulkan.VK10.*;

import java.nio.LongBuffer;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.*;

/**
 * Work that new tensors and images need before first use (zero-fill, image layout), gathered into one command buffer
 * and submitted once, right before the next sequence runs. Making a thousand tensors costs one submit, not a thousand.
 */
public final class InitBatch implements AutoCloseable {
    private final VulkanDevice device;
    private final VulkanDevice.Queue queue;
    private final long pool;
    private final VkCommandBuffer cmd;
    private final long fence;
    /** Volatile so every evaluation can see "nothing pending" without taking the lock. */
    private volatile boolean recording;
    private final java.util.List<StagingPool.Slice> uploads = new java.util.ArrayList<>();

    public InitBatch(VulkanDevice device) {
        this.device = device;
        this.queue = device.queues().get(0);
        try (MemoryStack stack = stackPush()) {
            VkCommandPoolCreateInfo pci = VkCommandPoolCreateInfo.calloc(stack).sType$Default()
                    .flags(VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT).queueFamilyIndex(queue.family());
            LongBuffer lp = stack.mallocLong(1);
            check(vkCreateCommandPool(device.handle(), pci, null, lp), "vkCreateCommandPool");
            pool = lp.get(0);
            VkCommandBufferAllocateInfo ai = VkCommandBufferAllocateInfo.calloc(stack).sType$Default().commandPool(pool)
                    .level(VK_COMMAND_BUFFER_LEVEL_PRIMARY).commandBufferCount(1);
            PointerBuffer pp = stack.mallocPointer(1);
            check(vkAllocateCommandBuffers(device.handle(), ai, pp), "vkAllocateCommandBuffers");
            cmd = new VkCommandBuffer(pp.get(0), device.handle());
            check(vkCreateFence(device.handle(), VkFenceCreateInfo.calloc(stack).sType$Default(), null, lp), "vkCreateFence");
            fence = lp.get(0);
        }
    }

    private void begin() {
        if (!recording) {
            try (MemoryStack stack = stackPush()) {
                check(vkBeginCommandBuffer(cmd, VkCommandBufferBeginInfo.calloc(stack).sType$Default()
                        .flags(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT)), "vkBeginCommandBuffer");
            }
            recording = true;
        }
    }

    /** Zero-fills a buffer (size a multiple of 4). */
    public synchronized void fill(long buffer, long size) {
        begin();
        vkCmdFillBuffer(cmd, buffer, 0, size, 0);
    }

    /** Moves a new image to GENERAL, where it stays, and clears it to zero. */
    public synchronized void clearImage(long image) {
        begin();
        try (MemoryStack stack = stackPush()) {
            VkImageMemoryBarrier.Buffer b = VkImageMemoryBarrier.calloc(1, stack).sType$Default()
                    .srcAccessMask(0).dstAccessMask(VK_ACCESS_TRANSFER_WRITE_BIT)
                    .oldLayout(VK_IMAGE_LAYOUT_UNDEFINED).newLayout(VK_IMAGE_LAYOUT_GENERAL)
                    .srcQueueFamilyIndex(VK_QUEUE_FAMILY_IGNORED).dstQueueFamilyIndex(VK_QUEUE_FAMILY_IGNORED).image(image);
            b.subresourceRange().aspectMask(VK_IMAGE_ASPECT_COLOR_BIT).levelCount(1).layerCount(1);
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, null, null, b);
            VkImageSubresourceRange.Buffer range = VkImageSubresourceRange.calloc(1, stack)
                    .aspectMask(VK_IMAGE_ASPECT_COLOR_BIT).levelCount(1).layerCount(1);
            vkCmdClearColorImage(cmd, image, VK_IMAGE_LAYOUT_GENERAL, VkClearColorValue.calloc(stack), range);
        }
    }

    /**
     * Moves a new host-visible linear image from PREINITIALIZED to GENERAL, keeping what the host wrote into it (its
     * data or zeros) before the submission that makes those writes visible.
     */
    public synchronized void preinitializedImage(long image) {
        begin();
        try (MemoryStack stack = stackPush()) {
            VkImageMemoryBarrier.Buffer b = VkImageMemoryBarrier.calloc(1, stack).sType$Default()
                    .srcAccessMask(VK_ACCESS_HOST_WRITE_BIT)
                    .dstAccessMask(VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT
                            | VK_ACCESS_SHADER_WRITE_BIT)
                    .oldLayout(VK_IMAGE_LAYOUT_PREINITIALIZED).newLayout(VK_IMAGE_LAYOUT_GENERAL)
                    .srcQueueFamilyIndex(VK_QUEUE_FAMILY_IGNORED).dstQueueFamilyIndex(VK_QUEUE_FAMILY_IGNORED).image(image);
            b.subresourceRange().aspectMask(VK_IMAGE_ASPECT_COLOR_BIT).levelCount(1).layerCount(1);
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, null, null, b);
        }
    }

    /**
     * Copies bytes into GPU-only memory through a temporary staging slice, freed after the next flush. Ordered after
     * the fills and clears gathered so far.
     */
    public synchronized void upload(java.lang.foreign.MemorySegment data, long dstBuffer) {
        StagingPool.Slice slice = stagedCopyOf(data);
        try (MemoryStack stack = stackPush()) {
            vkCmdCopyBuffer(cmd, slice.buffer(), dstBuffer, VkBufferCopy.calloc(1, stack).srcOffset(slice.offset())
                    .dstOffset(0).size(data.byteSize()));
        }
    }

    /** Like {@link #upload} for a whole 2-D image in GENERAL layout, rows packed. */
    public synchronized void uploadImage(java.lang.foreign.MemorySegment data, long image, int width, int height) {
        StagingPool.Slice slice = stagedCopyOf(data);
        try (MemoryStack stack = stackPush()) {
            VkBufferImageCopy.Buffer r = VkBufferImageCopy.calloc(1, stack).bufferOffset(slice.offset());
            r.imageSubresource().aspectMask(VK_IMAGE_ASPECT_COLOR_BIT).layerCount(1);
            r.imageExtent().set(width, height, 1);
            vkCmdCopyBufferToImage(cmd, slice.buffer(), image, VK_IMAGE_LAYOUT_GENERAL, r);
        }
    }

    private StagingPool.Slice stagedCopyOf(java.lang.foreign.MemorySegment data) {
        begin();
        StagingPool.Slice slice = device.staging().allocate(data.byteSize());
        uploads.add(slice);
        java.lang.foreign.MemorySegment.copy(data, 0,
                java.lang.foreign.MemorySegment.ofAddress(slice.address()).reinterpret(data.byteSize()), 0, data.byteSize());
        try (MemoryStack stack = stackPush()) {
            VkMemoryBarrier.Buffer mb = VkMemoryBarrier.calloc(1, stack).sType$Default()
                    .srcAccessMask(VK_ACCESS_TRANSFER_WRITE_BIT).dstAccessMask(VK_ACCESS_TRANSFER_WRITE_BIT);
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, mb, null, null);
        }
        return slice;
    }

    /** Submits what was gathered and waits for it; nothing happens when nothing was gathered. */
    public void flush() {
        if (recording) {
            flushPending();
        }
    }

    private synchronized void flushPending() {
        if (!recording) {
            return;
        }
        // "pending" stays visible until the work is done: an evaluation on another thread must not overtake it
        try (MemoryStack stack = stackPush()) {
            // later work on this queue is ordered after these writes by the barrier's scopes
            VkMemoryBarrier.Buffer mb = VkMemoryBarrier.calloc(1, stack).sType$Default()
                    .srcAccessMask(VK_ACCESS_TRANSFER_WRITE_BIT).dstAccessMask(VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, mb, null, null);
            check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
            VkSubmitInfo si = VkSubmitInfo.calloc(stack).sType$Default().pCommandBuffers(stack.pointers(cmd));
            synchronized (queue) {
                check(vkQueueSubmit(queue.handle(), si, fence), "vkQueueSubmit");
            }
            check(vkWaitForFences(device.handle(), fence, true, Long.MAX_VALUE), "vkWaitForFences");
            check(vkResetFences(device.handle(), fence), "vkResetFences");
            check(vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
        } finally {
            recording = false;
        }
        uploads.forEach(device.staging()::free);
        uploads.clear();
    }

    @Override
    public synchronized void close() {
        vkDestroyFence(device.handle(), fence, null);
        vkDestroyCommandPool(device.handle(), pool, null);
    }
}

package io.jkompute;

import static org.lwjgl.vulkan.VK10.*;

import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.*;

/**
 * What an operation records into: the command buffer plus the barriers and copies every operation needs.
 *
 * <p>Barriers are global memory barriers ({@link VkMemoryBarrier}), one before each operation: as cheap to record as
 * per-buffer ones, and they also order work against earlier submissions on the same queue. Unlike Kompute, consecutive
 * dispatches are therefore ordered by default; a read after a write never races.
 */
final class CommandRecorder {
    static final int WRITES = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    static final int WORK_STAGES = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;

    private final VkCommandBuffer cmd;
    private final MemoryStack stack;

    CommandRecorder(VkCommandBuffer cmd, MemoryStack stack) {
        this.cmd = cmd;
        this.stack = stack;
    }

    VkCommandBuffer cmd() {
        return cmd;
    }

    MemoryStack stack() {
        return stack;
    }

    void barrier(int srcStage, int srcAccess, int dstStage, int dstAccess) {
        VkMemoryBarrier.Buffer mb = VkMemoryBarrier.calloc(1, stack).sType$Default()
                .srcAccessMask(srcAccess).dstAccessMask(dstAccess);
        vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, mb, null, null);
    }

    /** Earlier compute and transfer work (reads and writes) completes before transfers that follow. */
    void beforeTransfer() {
        barrier(WORK_STAGES, WRITES, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    }

    /** Earlier compute and transfer work completes before a dispatch that follows. */
    void beforeCompute() {
        barrier(WORK_STAGES, WRITES, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    }

    /** Device writes become visible to the host once the submission completes. */
    void beforeHost() {
        barrier(WORK_STAGES, WRITES, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    }

    void copyBuffer(long src, long srcOffset, long dst, long dstOffset, long bytes) {
        VkBufferCopy.Buffer region = VkBufferCopy.calloc(1, stack).srcOffset(srcOffset).dstOffset(dstOffset).size(bytes);
        vkCmdCopyBuffer(cmd, src, dst, region);
    }

    void copyBufferToImage(long src, long srcOffset, Image dst) {
        vkCmdCopyBufferToImage(cmd, src, dst.image, VK_IMAGE_LAYOUT_GENERAL, imageRegion(srcOffset, dst));
    }

    void copyImageToBuffer(Image src, long dst, long dstOffset) {
        vkCmdCopyImageToBuffer(cmd, src.image, VK_IMAGE_LAYOUT_GENERAL, dst, imageRegion(dstOffset, src));
    }

    void copyImage(Image src, Image dst) {
        VkImageCopy.Buffer r = VkImageCopy.calloc(1, stack);
        r.srcSubresource().aspectMask(VK_IMAGE_ASPECT_COLOR_BIT).layerCount(1);
        r.dstSubresource().aspectMask(VK_IMAGE_ASPECT_COLOR_BIT).layerCount(1);
        r.extent().set(src.width, src.height, 1);
        vkCmdCopyImage(cmd, src.image, VK_IMAGE_LAYOUT_GENERAL, dst.image, VK_IMAGE_LAYOUT_GENERAL, r);
    }

    private VkBufferImageCopy.Buffer imageRegion(long bufferOffset, Image img) {
        VkBufferImageCopy.Buffer r = VkBufferImageCopy.calloc(1, stack).bufferOffset(bufferOffset);
        r.imageSubresource().aspectMask(VK_IMAGE_ASPECT_COLOR_BIT).layerCount(1);
        r.imageExtent().set(img.width, img.height, 1);
        return r;
    }
}

package io.jkompute;

import static org.lwjgl.vulkan.VK10.*;

import java.util.List;
import org.lwjgl.vulkan.VkBufferMemoryBarrier;
import org.lwjgl.vulkan.VkImageMemoryBarrier;

/**
 * An explicit buffer/image memory barrier on the given tensors and images, with Vulkan access and stage masks
 * ({@code VK_ACCESS_*}, {@code VK_PIPELINE_STAGE_*} values). jkompute already orders its own operations; this is for
 * finer control, or to guard the staging copy ({@code onPrimary = false}).
 */
public final class OpMemoryBarrier extends Op {
    private final List<Memory> memories;
    private final int srcAccess;
    private final int dstAccess;
    private final int srcStage;
    private final int dstStage;
    private final boolean onPrimary;

    /**
     * A barrier on {@code memories} with these {@code VK_ACCESS_*} and {@code VK_PIPELINE_STAGE_*} masks (stage masks
     * must not be 0); {@code onPrimary} false guards the staging copy instead of the primary memory.
     */
    public OpMemoryBarrier(List<? extends Memory> memories, int srcAccessMask, int dstAccessMask, int srcStageMask,
            int dstStageMask, boolean onPrimary) {
        this.memories = nonEmpty("OpMemoryBarrier", memories);
        if (srcStageMask == 0 || dstStageMask == 0) {
            throw new IllegalArgumentException("OpMemoryBarrier: stage masks must not be 0");
        }
        this.srcAccess = srcAccessMask;
        this.dstAccess = dstAccessMask;
        this.srcStage = srcStageMask;
        this.dstStage = dstStageMask;
        this.onPrimary = onPrimary;
    }

    /** Shader writes before → shader reads and writes after, on the primary memory: the compute-to-compute barrier. */
    public OpMemoryBarrier(Memory... memories) {
        this(List.of(memories), VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, true);
    }

    @Override
    void record(CommandRecorder rec) {
        int buffers = 0;
        int images = 0;
        for (Memory m : memories) {
            if (m instanceof Image && onPrimary) images++; else if (onPrimary || m.staging != null) buffers++;
        }
        VkBufferMemoryBarrier.Buffer bb = buffers == 0 ? null : VkBufferMemoryBarrier.calloc(buffers, rec.stack());
        VkImageMemoryBarrier.Buffer ib = images == 0 ? null : VkImageMemoryBarrier.calloc(images, rec.stack());
        int b = 0;
        int i = 0;
        for (Memory m : memories) {
            if (m instanceof Image img && onPrimary) {
                VkImageMemoryBarrier x = ib.get(i++).sType$Default().srcAccessMask(srcAccess).dstAccessMask(dstAccess)
                        .oldLayout(VK_IMAGE_LAYOUT_GENERAL).newLayout(VK_IMAGE_LAYOUT_GENERAL)
                        .srcQueueFamilyIndex(VK_QUEUE_FAMILY_IGNORED).dstQueueFamilyIndex(VK_QUEUE_FAMILY_IGNORED).image(img.image);
                x.subresourceRange().aspectMask(VK_IMAGE_ASPECT_COLOR_BIT).levelCount(1).layerCount(1);
            } else if (onPrimary || m.staging != null) {
                VkBufferMemoryBarrier x = bb.get(b++).sType$Default().srcAccessMask(srcAccess).dstAccessMask(dstAccess)
                        .srcQueueFamilyIndex(VK_QUEUE_FAMILY_IGNORED).dstQueueFamilyIndex(VK_QUEUE_FAMILY_IGNORED);
                if (onPrimary) {
                    Tensor t = (Tensor) m;
                    x.buffer(t.buffer).offset(0).size(VK_WHOLE_SIZE);
                } else {
                    x.buffer(m.staging.buffer()).offset(m.staging.offset()).size(m.byteSize());
                }
            }
        }
        vkCmdPipelineBarrier(rec.cmd(), srcStage, dstStage, 0, null, bb, ib);
    }

    @Override
    List<Memory> memories() {
        return memories;
    }
}

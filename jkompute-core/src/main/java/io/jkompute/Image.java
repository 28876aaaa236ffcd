package io.jkompute;

import static io.jkompute.internal.Vk.check;
import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.util.vma.Vma.*;
import static org.lwjgl.vulkan.VK10.*;

import io.jkompute.internal.VulkanDevice;
import java.lang.foreign.MemorySegment;
import java.nio.LongBuffer;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.util.vma.VmaAllocationCreateInfo;
import org.lwjgl.vulkan.VkFormatProperties;
import org.lwjgl.vulkan.VkImageCreateInfo;
import org.lwjgl.vulkan.VkImageViewCreateInfo;

/**
 * A 2-D storage image ({@code imageLoad}/{@code imageStore} in GLSL) of 1, 2 or 4 channels, in Kompute's formats:
 * int8/uint8/int16/uint16/int32/uint32/float32 → R/RG/RGBA of the matching width.
 * Memory types DEVICE (with a staging slice, rows packed: width × channels elements each) and STORAGE.
 *
 * <p>The image stays in {@code VK_IMAGE_LAYOUT_GENERAL} for its whole life, which every use here allows; so, unlike
 * Kompute, no layout is tracked at record time and sequences can be recorded in any order.
 */
public final class Image extends Memory {
    final int width;
    final int height;
    final int channels;
    final int format;
    final long image;
    final long view;
    final long allocation;

    Image(Manager manager, DataType type, int width, int height, int channels, MemoryType memoryType, MemorySegment init) {
        super(manager, "Image#" + manager.nextId() + " " + type + "[" + height + "x" + width + "x" + channels + "] " + memoryType,
                type, type.byteSize(), checkedSize(width, height, channels), memoryType);
        if (memoryType != MemoryType.DEVICE && memoryType != MemoryType.STORAGE) {
            throw new IllegalArgumentException("images are DEVICE or STORAGE memory, got " + memoryType
                    + "; use a HOST tensor for host-visible data and OpCopy it into the image");
        }
        this.width = width;
        this.height = height;
        this.channels = channels;
        this.format = format(type, channels);
        VulkanDevice dev = manager.device();
        try (MemoryStack stack = stackPush()) {
            VkFormatProperties fp = VkFormatProperties.calloc(stack);
            vkGetPhysicalDeviceFormatProperties(dev.physical(), format, fp);
            if ((fp.optimalTilingFeatures() & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT) == 0) {
                throw new IllegalArgumentException(dev.properties().name() + " cannot use " + type + " images with "
                        + channels + " channel(s) as storage images (format " + format + ")");
            }
            VkImageCreateInfo ici = VkImageCreateInfo.calloc(stack).sType$Default().imageType(VK_IMAGE_TYPE_2D).format(format)
                    .mipLevels(1).arrayLayers(1).samples(VK_SAMPLE_COUNT_1_BIT).tiling(VK_IMAGE_TILING_OPTIMAL)
                    .usage(VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT)
                    .initialLayout(VK_IMAGE_LAYOUT_UNDEFINED);
            ici.extent().set(width, height, 1);
            dev.sharing(ici, stack);
            VmaAllocationCreateInfo aci = VmaAllocationCreateInfo.calloc(stack).usage(VMA_MEMORY_USAGE_AUTO_PREFER_DEVICE);
            LongBuffer pImg = stack.mallocLong(1);
            PointerBuffer pAlloc = stack.mallocPointer(1);
            check(vmaCreateImage(dev.allocator(), ici, aci, pImg, pAlloc, null), "vmaCreateImage");
            image = pImg.get(0);
            allocation = pAlloc.get(0);
            VkImageViewCreateInfo vci = VkImageViewCreateInfo.calloc(stack).sType$Default().image(image)
                    .viewType(VK_IMAGE_VIEW_TYPE_2D).format(format);
            vci.subresourceRange().aspectMask(VK_IMAGE_ASPECT_COLOR_BIT).levelCount(1).layerCount(1);
            LongBuffer pView = stack.mallocLong(1);
            int r = vkCreateImageView(dev.handle(), vci, null, pView);
            if (r != VK_SUCCESS) {
                vmaDestroyImage(dev.allocator(), image, allocation);
                check(r, "vkCreateImageView");
            }
            view = pView.get(0);
        }
        if (memoryType == MemoryType.DEVICE) {
            staging = dev.staging().allocate(byteSize());
            hostView(staging.address());
            if (init != null) {
                MemorySegment.copy(init, 0, data(), 0, byteSize());
            }
        }
        long img = image;
        long v = view;
        long alloc = allocation;
        var slice = staging;
        Runnable closeHostView = hostViewCloser();
        track(() -> {
            closeHostView.run();
            vkDestroyImageView(dev.handle(), v, null);
            vmaDestroyImage(dev.allocator(), img, alloc);
            if (slice != null) {
                dev.staging().free(slice);
            }
        });
        manager.initBatch().clearImage(image);
        if (memoryType == MemoryType.STORAGE && init != null) {
            manager.initBatch().uploadImage(init, image, width, height);
        }
    }

    private static long checkedSize(int w, int h, int c) {
        if (c != 1 && c != 2 && c != 4) {
            throw new IllegalArgumentException("images have 1, 2 or 4 channels, got " + c
                    + (c == 3 ? " (3-channel storage images are not portable: Mesa and Metal lack them)" : ""));
        }
        if (w <= 0 || h <= 0) {
            throw new IllegalArgumentException("image width and height must be positive, got " + w + "x" + h);
        }
        return (long) w * h * c;
    }

    static int format(DataType t, int c) {
        int i = c == 1 ? 0 : c == 2 ? 1 : 2;
        int[] f = switch (t) {
            case INT8 -> new int[] {VK_FORMAT_R8_SINT, VK_FORMAT_R8G8_SINT, VK_FORMAT_R8G8B8A8_SINT};
            case UINT8 -> new int[] {VK_FORMAT_R8_UINT, VK_FORMAT_R8G8_UINT, VK_FORMAT_R8G8B8A8_UINT};
            case INT16 -> new int[] {VK_FORMAT_R16_SINT, VK_FORMAT_R16G16_SINT, VK_FORMAT_R16G16B16A16_SINT};
            case UINT16 -> new int[] {VK_FORMAT_R16_UINT, VK_FORMAT_R16G16_UINT, VK_FORMAT_R16G16B16A16_UINT};
            case INT32 -> new int[] {VK_FORMAT_R32_SINT, VK_FORMAT_R32G32_SINT, VK_FORMAT_R32G32B32A32_SINT};
            case UINT32 -> new int[] {VK_FORMAT_R32_UINT, VK_FORMAT_R32G32_UINT, VK_FORMAT_R32G32B32A32_UINT};
            case FLOAT16 -> new int[] {VK_FORMAT_R16_SFLOAT, VK_FORMAT_R16G16_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT};
            case FLOAT32 -> new int[] {VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT};
            default -> throw new IllegalArgumentException("images cannot hold " + t
                    + " data; use int8, uint8, int16, uint16, int32, uint32, float16 or float32");
        };
        return f[i];
    }

    public int width() {
        return width;
    }

    public int height() {
        return height;
    }

    public int channels() {
        return channels;
    }
}

package io.jkompute;

import static io.jkompute.internal.Vk.check;
import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.util.vma.Vma.*;
import static org.lwjgl.vulkan.VK10.*;

import io.jkompute.internal.VulkanDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.util.vma.VmaAllocationCreateInfo;
import org.lwjgl.util.vma.VmaAllocationInfo;
import org.lwjgl.vulkan.*;

/**
 * A 2-D storage image ({@code imageLoad}/{@code imageStore} in GLSL) of 1, 2 or 4 channels, in Kompute's formats:
 * int8/uint8/int16/uint16/int32/uint32/float16/float32 → R/RG/RGBA of the matching width.
 *
 * <p>All four memory types, as in Kompute: DEVICE (with a staging slice, rows packed: width × channels elements each,
 * moved by {@link OpSyncDevice}/{@link OpSyncLocal}), STORAGE (no host view), and HOST and DEVICE_AND_HOST, whose
 * linear-tiled memory the host reads and writes directly. A linear image's rows may be padded to the device's row
 * pitch ({@link #rowPitch()}): the typed reads and writes ({@code toFloatArray()}, {@code setData(...)}) copy row by row
 * then, and {@link #data()}, a packed zero-copy view, is only available where rows are not padded.
 *
 * <p>The image stays in {@code VK_IMAGE_LAYOUT_GENERAL} for its whole life, which every use here allows; so, unlike
 * Kompute, no layout is tracked at record time and sequences can be recorded in any order.
 */
public final class Image extends Memory {
    final int width;
    final int height;
    final int channels;
    final int format;
    final Tiling tiling;
    final long image;
    final long view;
    final long allocation;
    /** Bytes from one row to the next in host memory: width × pixel size, or the linear image's padded pitch. */
    private final long rowPitch;
    /** Where the first row starts in host memory, for a host-visible image; 0 otherwise. */
    private final long hostAddress;
    /** A host-visible image's rows, padding included; its arena ends with the image, so late use fails cleanly. */
    private MemorySegment rows;

    Image(Manager manager, DataType type, int width, int height, int channels, MemoryType memoryType, Tiling tiling,
            MemorySegment init) {
        super(manager, "Image#" + manager.nextId() + " " + type + "[" + height + "x" + width + "x" + channels + "] " + memoryType,
                type, type.byteSize(), checkedSize(width, height, channels), memoryType);
        this.tiling = tiling == null ? Tiling.defaultFor(memoryType) : tiling;
        if (memoryType.hostVisible() && this.tiling == Tiling.OPTIMAL) {
            throw new IllegalArgumentException("a " + memoryType + " image needs LINEAR tiling: the host cannot address an"
                    + " OPTIMAL-tiled image (OPTIMAL is for DEVICE and STORAGE images)");
        }
        this.width = width;
        this.height = height;
        this.channels = channels;
        this.format = format(type, channels);
        VulkanDevice dev = manager.device();
        boolean linear = this.tiling == Tiling.LINEAR;
        int vkTiling = linear ? VK_IMAGE_TILING_LINEAR : VK_IMAGE_TILING_OPTIMAL;
        int usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
        long mapped;
        Arena rowsArena = null;
        try (MemoryStack stack = stackPush()) {
            checkFormat(dev, type, channels, format, this.tiling, width, height, usage, stack);
            VkImageCreateInfo ici = VkImageCreateInfo.calloc(stack).sType$Default().imageType(VK_IMAGE_TYPE_2D).format(format)
                    .mipLevels(1).arrayLayers(1).samples(VK_SAMPLE_COUNT_1_BIT).tiling(vkTiling).usage(usage)
                    // the host writes a host-visible image before its first use; PREINITIALIZED keeps those writes
                    .initialLayout(memoryType.hostVisible() ? VK_IMAGE_LAYOUT_PREINITIALIZED : VK_IMAGE_LAYOUT_UNDEFINED);
            ici.extent().set(width, height, 1);
            dev.sharing(ici, stack);
            VmaAllocationCreateInfo aci = allocationFor(memoryType, stack);
            LongBuffer pImg = stack.mallocLong(1);
            PointerBuffer pAlloc = stack.mallocPointer(1);
            VmaAllocationInfo info = VmaAllocationInfo.calloc(stack);
            int r = vmaCreateImage(dev.allocator(), ici, aci, pImg, pAlloc, info);
            if (r == VK_ERROR_FEATURE_NOT_PRESENT && memoryType == MemoryType.DEVICE_AND_HOST) {
                throw new JkomputeException(dev.properties().name() + " has no memory that is device-local and host-visible"
                        + " for a linear image (DEVICE_AND_HOST); use HOST or DEVICE");
            }
            check(r, "vmaCreateImage");
            image = pImg.get(0);
            allocation = pAlloc.get(0);
            mapped = info.pMappedData();
            VkImageViewCreateInfo vci = VkImageViewCreateInfo.calloc(stack).sType$Default().image(image)
                    .viewType(VK_IMAGE_VIEW_TYPE_2D).format(format);
            vci.subresourceRange().aspectMask(VK_IMAGE_ASPECT_COLOR_BIT).levelCount(1).layerCount(1);
            LongBuffer pView = stack.mallocLong(1);
            r = vkCreateImageView(dev.handle(), vci, null, pView);
            if (r != VK_SUCCESS) {
                vmaDestroyImage(dev.allocator(), image, allocation);
                check(r, "vkCreateImageView");
            }
            view = pView.get(0);
            if (memoryType.hostVisible()) {
                VkSubresourceLayout layout = VkSubresourceLayout.calloc(stack);
                vkGetImageSubresourceLayout(dev.handle(), image, VkImageSubresource.calloc(stack)
                        .aspectMask(VK_IMAGE_ASPECT_COLOR_BIT), layout);
                rowPitch = layout.rowPitch();
                hostAddress = mapped + layout.offset();
            } else {
                rowPitch = rowBytes();
                hostAddress = 0;
            }
        }
        if (memoryType == MemoryType.DEVICE) {
            staging = dev.staging().allocate(byteSize());
            hostView(staging.address());
            if (init != null) {
                MemorySegment.copy(init, 0, data(), 0, byteSize());
            }
        } else if (memoryType.hostVisible()) {
            if (rowPitch == rowBytes()) {
                hostView(hostAddress);
            }
            rowsArena = Arena.ofShared();
            rows = MemorySegment.ofAddress(hostAddress).reinterpret(rowPitch * (height - 1) + rowBytes(), rowsArena, null);
            // zeros (or the data) in every row, padding included, before the first submission sees the image
            rows.fill((byte) 0);
            if (init != null) {
                copyRows(init, rows, true);
            }
        }
        long img = image;
        long v = view;
        long alloc = allocation;
        var slice = staging;
        Runnable closeHostView = hostViewCloser();
        Arena closeRows = rowsArena;
        track(() -> {
            closeHostView.run();
            if (closeRows != null) {
                closeRows.close();
            }
            vkDestroyImageView(dev.handle(), v, null);
            vmaDestroyImage(dev.allocator(), img, alloc);
            if (slice != null) {
                dev.staging().free(slice);
            }
        });
        if (memoryType.hostVisible()) {
            manager.initBatch().preinitializedImage(image);
        } else {
            manager.initBatch().clearImage(image);
        }
        if (memoryType == MemoryType.STORAGE && init != null) {
            manager.initBatch().uploadImage(init, image, width, height);
        }
    }

    /**
     * The format must support storage, transfer source and transfer destination with this tiling, and the device must
     * allow an image of this size with it; else an error naming format, tiling and what is missing.
     */
    private static void checkFormat(VulkanDevice dev, DataType type, int channels, int format, Tiling tiling, int width,
            int height, int usage, MemoryStack stack) {
        VkFormatProperties fp = VkFormatProperties.calloc(stack);
        vkGetPhysicalDeviceFormatProperties(dev.physical(), format, fp);
        int features = tiling == Tiling.LINEAR ? fp.linearTilingFeatures() : fp.optimalTilingFeatures();
        String unsupported = unsupported(dev.properties().name(), type, channels, tiling, features);
        if (unsupported != null) {
            throw new IllegalArgumentException(unsupported);
        }
        String what = describe(type, channels, tiling);
        VkImageFormatProperties ifp = VkImageFormatProperties.calloc(stack);
        int r = vkGetPhysicalDeviceImageFormatProperties(dev.physical(), format, VK_IMAGE_TYPE_2D,
                tiling == Tiling.LINEAR ? VK_IMAGE_TILING_LINEAR : VK_IMAGE_TILING_OPTIMAL, usage, 0, ifp);
        if (r == VK_ERROR_FORMAT_NOT_SUPPORTED) {
            throw new IllegalArgumentException(dev.properties().name() + " cannot make a " + what
                    + " for storage and transfers (vkGetPhysicalDeviceImageFormatProperties: VK_ERROR_FORMAT_NOT_SUPPORTED)");
        }
        check(r, "vkGetPhysicalDeviceImageFormatProperties");
        if (width > ifp.maxExtent().width() || height > ifp.maxExtent().height()) {
            throw new IllegalArgumentException("a " + width + "x" + height + " " + what + " exceeds " + dev.properties().name()
                    + "'s largest, " + ifp.maxExtent().width() + "x" + ifp.maxExtent().height());
        }
    }

    /**
     * Why a format with these features cannot be a jkompute image (storage, transfer source and destination are all
     * needed), naming device, format, tiling and the missing features; null when it can.
     */
    static String unsupported(String device, DataType type, int channels, Tiling tiling, int features) {
        List<String> missing = new ArrayList<>();
        if ((features & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT) == 0) missing.add("storage image");
        if ((features & VK11.VK_FORMAT_FEATURE_TRANSFER_SRC_BIT) == 0) missing.add("transfer source");
        if ((features & VK11.VK_FORMAT_FEATURE_TRANSFER_DST_BIT) == 0) missing.add("transfer destination");
        if (missing.isEmpty()) {
            return null;
        }
        return device + " cannot make a " + describe(type, channels, tiling) + ": the format lacks "
                + String.join(", ", missing) + " support with " + tiling + " tiling"
                + (tiling == Tiling.LINEAR ? "; use a DEVICE image (OPTIMAL tiling) and OpSyncDevice/OpSyncLocal" : "");
    }

    private static String describe(DataType type, int channels, Tiling tiling) {
        return type + " image with " + channels + " channel(s) (" + formatName(type, channels) + ") and " + tiling + " tiling";
    }

    /** Bytes of one packed row: width × channels × element size. */
    private long rowBytes() {
        return (long) width * channels * elementSize;
    }

    /**
     * Copies between packed rows ({@code packed}) and this image's pitched host rows ({@code rows}), one row at a time.
     */
    private void copyRows(MemorySegment packed, MemorySegment rows, boolean intoImage) {
        long rb = rowBytes();
        for (int y = 0; y < height; y++) {
            if (intoImage) {
                MemorySegment.copy(packed, y * rb, rows, y * rowPitch, rb);
            } else {
                MemorySegment.copy(rows, y * rowPitch, packed, y * rb, rb);
            }
        }
    }

    /** Whether host reads and writes must go row by row: a host-visible linear image with padded rows. */
    private boolean pitched() {
        return hostAddress != 0 && rowPitch != rowBytes();
    }

    private MemorySegment hostRows() {
        checkOpen();
        return rows;
    }

    @Override
    void copyIn(MemorySegment src) {
        if (pitched()) {
            copyRows(src, hostRows(), true);
        } else {
            super.copyIn(src);
        }
    }

    @Override
    void copyOut(MemorySegment dst) {
        if (pitched()) {
            copyRows(dst, hostRows(), false);
        } else {
            super.copyOut(dst);
        }
    }

    @Override
    String noHostViewReason() {
        return pitched() ? this + " has rows padded to " + rowPitch + " bytes (" + rowBytes() + " bytes of data each), so"
                + " no packed view of its memory exists; use the typed reads and writes (toFloatArray(), setData(...))"
                + ", which copy row by row" : super.noHostViewReason();
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

    private static String formatName(DataType t, int c) {
        String comps = c == 1 ? "R" : c == 2 ? "RG" : "RGBA";
        int bits = t.byteSize() * 8;
        String kind = switch (t) {
            case INT8, INT16, INT32 -> "SINT";
            case FLOAT16, FLOAT32 -> "SFLOAT";
            default -> "UINT";
        };
        StringBuilder sb = new StringBuilder("VK_FORMAT_");
        for (char ch : comps.toCharArray()) {
            sb.append(ch).append(bits);
        }
        return sb.append('_').append(kind).toString();
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

    /** Width in pixels. */
    public int width() {
        return width;
    }

    /** Height in pixels. */
    public int height() {
        return height;
    }

    /** Channels per pixel (1, 2 or 4). */
    public int channels() {
        return channels;
    }

    /** How the texels are laid out: LINEAR or OPTIMAL. */
    public Tiling tiling() {
        return tiling;
    }

    /**
     * Bytes from one row to the next in host memory: the device's row pitch for a HOST or DEVICE_AND_HOST image
     * ({@code vkGetImageSubresourceLayout}), width × channels × element size otherwise (packed staging rows).
     */
    public long rowPitch() {
        return rowPitch;
    }
}

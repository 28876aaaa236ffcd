package io.jkompute;

/**
 * How an image's texels are laid out in memory (Kompute's {@code vk::ImageTiling}). By default it follows the memory
 * type: LINEAR for HOST and DEVICE_AND_HOST images, whose memory the host reads row by row, OPTIMAL for DEVICE and
 * STORAGE images.
 */
public enum Tiling {
    /** The device's own layout: fastest for shaders, not addressable by the host (DEVICE and STORAGE images only). */
    OPTIMAL,
    /** Rows one after the other, each padded to the device's row pitch; what host-visible images need. */
    LINEAR;

    /** The default tiling of an image of the given memory type. */
    static Tiling defaultFor(MemoryType memoryType) {
        return memoryType.hostVisible() ? LINEAR : OPTIMAL;
    }
}

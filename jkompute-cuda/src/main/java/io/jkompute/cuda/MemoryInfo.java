package io.jkompute.cuda;

/**
 * Device memory as the driver reports it for the current device.
 *
 * @param free  bytes free now
 * @param total bytes in all
 */
public record MemoryInfo(long free, long total) {
    /** Bytes in use (by this process and others). */
    public long used() {
        return total - free;
    }
}

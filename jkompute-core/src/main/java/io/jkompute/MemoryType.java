package io.jkompute;

/**
 * Where a tensor's or image's memory lives, and whether the host can see it.
 * The same four kinds as Kompute; {@link #DEVICE} is the default.
 */
public enum MemoryType {
    /** Device-local memory with a host-visible staging copy; move data with {@link OpSyncDevice} / {@link OpSyncLocal}. */
    DEVICE,
    /** Host-visible, host-coherent memory the GPU reads over the bus; no sync needed. */
    HOST,
    /** Device-local and host-visible at once (resizable BAR, integrated GPUs); no sync needed. Fails where no such memory exists. */
    DEVICE_AND_HOST,
    /**
     * Device-local memory with no host view; it can still be the source or target of a copy. Data given at creation
     * is uploaded once through a temporary staging slice.
     */
    STORAGE;

    /** Whether the host reads and writes this memory directly, without a staging copy. */
    boolean hostVisible() {
        return this == HOST || this == DEVICE_AND_HOST;
    }
}

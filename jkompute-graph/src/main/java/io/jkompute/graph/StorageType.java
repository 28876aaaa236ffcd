package io.jkompute.graph;

/** Where a tensor's memory lives (GXF's MemoryStorageType: kHost = 0, kDevice = 1, kSystem = 2). */
public enum StorageType {
    /** Host memory (GXF: pinned host). */
    HOST,
    /** GPU memory: a jkompute Vulkan tensor. */
    DEVICE,
    /** Ordinary host heap memory. */
    SYSTEM
}

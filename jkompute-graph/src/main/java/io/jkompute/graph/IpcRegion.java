package io.jkompute.graph;

/**
 * Where another process on the same device can read a device tensor's bytes: the device's identity (as
 * {@link DeviceMemoryProvider#ipcDevice} gives it), the {@link DeviceBuffer#ipcHandle() handle} of the buffer that
 * holds the tensor, and the offset of its first byte in that buffer. The bytes are dense and
 * {@link GraphTensor#byteSize()} long. The buffer must stay allocated and unchanged until the other process is done
 * reading (see {@link IpcImports#copy}).
 */
public record IpcRegion(byte[] device, byte[] handle, long offset) {
    /** Checks the parts: both byte arrays present and the offset not negative. */
    public IpcRegion {
        java.util.Objects.requireNonNull(device, "device");
        java.util.Objects.requireNonNull(handle, "handle");
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
    }
}

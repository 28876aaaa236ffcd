package io.jkompute.graph.cuda;

import io.jkompute.cuda.IpcMemory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.UUID;

/**
 * What a CUDA device buffer's {@code ipcHandle()} bytes hold: a version byte, the device's UUID (so the importer
 * can tell its own GPU from another), the 64-byte CUDA IPC handle and the size of the exported allocation, which
 * bounds every range later read from it. {@link #decode} checks all of it before anything is opened.
 */
record CudaIpcHandle(UUID device, byte[] handle, long byteSize) {
    static final byte VERSION = 1;
    static final int BYTES = 1 + 16 + IpcMemory.HANDLE_BYTES + 8;

    CudaIpcHandle {
        if (handle.length != IpcMemory.HANDLE_BYTES) {
            throw new IllegalArgumentException("a CUDA IPC handle has " + IpcMemory.HANDLE_BYTES + " bytes, this one " + handle.length);
        }
        if (byteSize <= 0) throw new IllegalArgumentException("a CUDA IPC buffer size must be positive, was " + byteSize);
    }

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(BYTES);
        b.put(VERSION).putLong(device.getMostSignificantBits()).putLong(device.getLeastSignificantBits());
        b.put(handle).putLong(byteSize);
        return b.array();
    }

    /** @throws IllegalArgumentException when {@code bytes} is not a handle this version wrote */
    static CudaIpcHandle decode(byte[] bytes) {
        if (bytes == null || bytes.length != BYTES) {
            throw new IllegalArgumentException("a CUDA IPC buffer handle has " + BYTES + " bytes, this one "
                    + (bytes == null ? "none" : bytes.length));
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        byte version = b.get();
        if (version != VERSION) throw new IllegalArgumentException("unknown CUDA IPC buffer handle version " + version);
        UUID device = new UUID(b.getLong(), b.getLong());
        byte[] h = new byte[IpcMemory.HANDLE_BYTES];
        b.get(h);
        return new CudaIpcHandle(device, h, b.getLong());
    }

    /** The key an opened mapping is cached under: the same allocation has the same handle bytes. */
    ByteBuffer key() {
        return ByteBuffer.wrap(Arrays.copyOf(handle, handle.length));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CudaIpcHandle h && device.equals(h.device) && Arrays.equals(handle, h.handle) && byteSize == h.byteSize;
    }

    @Override
    public int hashCode() {
        return device.hashCode() * 31 + Arrays.hashCode(handle);
    }

    @Override
    public String toString() {
        return "CudaIpcHandle[device " + device + ", " + byteSize + " bytes]";
    }
}

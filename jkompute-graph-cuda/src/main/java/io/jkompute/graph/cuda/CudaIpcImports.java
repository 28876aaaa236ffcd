package io.jkompute.graph.cuda;

import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.CudaException;
import io.jkompute.cuda.IpcMemory;
import io.jkompute.cuda.Stream;
import io.jkompute.graph.DeviceBuffer;
import io.jkompute.graph.IpcImports;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Other processes' CUDA buffers opened on one device, most recently used last. Pool blocks are few and live as long
 * as their graph, so each is opened once; memory from an allocator that allocates anew each time would open a
 * mapping per message, so at most {@link #MAX_OPEN} stay open and the least recently used is unmapped first.
 */
final class CudaIpcImports implements IpcImports {
    static final int MAX_OPEN = 256;

    private final int device;
    private final UUID uuid;
    private final Stream stream;
    private final Map<ByteBuffer, IpcMemory> open = new LinkedHashMap<>(16, 0.75f, true);
    private boolean closed;

    CudaIpcImports(int device) {
        this.device = device;
        this.uuid = Cuda.device(device).uuid();
        this.stream = CudaMemory.onDevice(device, () -> Stream.create(true));
    }

    @Override
    public void copy(byte[] handle, long offset, long bytes, DeviceBuffer target) {
        if (closed) throw new IllegalStateException("the IPC imports are closed");
        CudaIpcHandle h = CudaIpcHandle.decode(handle);
        if (!h.device().equals(uuid)) {
            throw new IllegalArgumentException("the buffer is on GPU " + h.device() + ", this process copies on GPU " + uuid
                    + " (device " + device + ")");
        }
        if (offset < 0 || bytes <= 0 || offset > h.byteSize() - bytes) {
            throw new IllegalArgumentException("range [" + offset + ", +" + bytes + ") is outside the other process's "
                    + h.byteSize() + "-byte buffer");
        }
        if (!(target instanceof CudaMemory.Buffer dst)) {
            throw new IllegalArgumentException("the target is not CUDA device memory: " + target);
        }
        if (bytes > dst.byteSize()) {
            throw new IllegalArgumentException(bytes + " bytes do not fit the " + dst.byteSize() + "-byte target");
        }
        IpcMemory src = opened(h);
        CudaMemory.onDevice(device, () -> {
            dst.awaitLastWork();
            src.copyTo(dst.block(), offset, bytes, stream);
            stream.synchronize();
            return null;
        });
    }

    private IpcMemory opened(CudaIpcHandle h) {
        ByteBuffer key = h.key();
        IpcMemory m = open.get(key);
        if (m != null) {
            if (m.byteSize() != h.byteSize()) {
                throw new IllegalArgumentException("the buffer was opened as " + m.byteSize() + " bytes, now declared "
                        + h.byteSize());
            }
            return m;
        }
        try {
            m = CudaMemory.onDevice(device, () -> IpcMemory.open(h.handle(), h.byteSize()));
        } catch (CudaException e) {
            throw new IllegalArgumentException("the other process's buffer cannot be opened (a forged handle, or one of "
                    + "this process): " + e.getMessage(), e);
        }
        open.put(key, m);
        if (open.size() > MAX_OPEN) {
            var eldest = open.entrySet().iterator().next();
            open.remove(eldest.getKey());
            eldest.getValue().close();
        }
        return m;
    }

    @Override
    public int openCount() {
        return open.size();
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        CudaMemory.onDevice(device, () -> {
            open.values().forEach(IpcMemory::close);
            open.clear();
            stream.close();
            return null;
        });
    }
}

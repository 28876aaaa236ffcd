package io.jkompute.graph.cuda;

import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.CudaException;
import io.jkompute.cuda.Event;
import io.jkompute.cuda.IpcMemory;
import io.jkompute.cuda.Stream;
import io.jkompute.graph.DeviceBuffer;
import io.jkompute.graph.IpcImports;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Other processes' CUDA buffers opened on one device, most recently used last. Pool blocks are few and live as long
 * as their graph, so each is opened once; memory from an allocator that allocates anew each time would open a
 * mapping per message, so at most {@link #MAX_OPEN} stay open and the least recently used is unmapped first.
 * Copies run in order on one stream of their own; each queued copy is tracked by an event from a small pool.
 */
final class CudaIpcImports implements IpcImports {
    static final int MAX_OPEN = 256;
    /** Events kept for reuse (creating one costs a driver call): more than a link's queue has copies in flight. */
    private static final int MAX_SPARE = 64;

    private final int device;
    private final UUID uuid;
    private final Stream stream;
    private final Map<ByteBuffer, IpcMemory> open = new LinkedHashMap<>(16, 0.75f, true);
    private final ArrayDeque<Event> spare = new ArrayDeque<>();
    private volatile boolean closed;

    CudaIpcImports(int device) {
        this.device = device;
        this.uuid = Cuda.device(device).uuid();
        this.stream = CudaMemory.onDevice(device, () -> Stream.create(true));
    }

    @Override
    public void copy(byte[] handle, long offset, long bytes, DeviceBuffer target) {
        copyQueued(handle, offset, bytes, target).close();
    }

    @Override
    public Pending copyQueued(byte[] handle, long offset, long bytes, DeviceBuffer target) {
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
        return CudaMemory.onDevice(device, () -> {
            orderAfterLastWork(dst);
            src.copyTo(dst.block(), offset, bytes, stream);
            // a tensor made from the block now carries this stream: its readers wait for the copy, not the host
            dst.lastStream().set(stream);
            Event done = event();
            try {
                done.record(stream);
            } catch (RuntimeException e) {
                recycle(done);
                stream.synchronize();
                throw e;
            }
            return new Queued(done);
        });
    }

    /**
     * Makes the copy stream wait, on the device, for the work last queued on the block (a reader of its previous
     * contents), instead of the host waiting for it.
     */
    private void orderAfterLastWork(CudaMemory.Buffer dst) {
        Stream last = dst.lastStream().get();
        if (last == null || last == stream) {
            return;
        }
        Event e = event();
        try {
            stream.waitFor(e.record(last));
        } catch (IllegalStateException destroyed) {
            // its pool has destroyed that stream (its queued work still runs): the host waits, as CudaMemory.await does
            CudaMemory.await(last);
        } finally {
            recycle(e); // a wait already queued is not affected by the event's later use
        }
    }

    private synchronized Event event() {
        Event e = spare.poll();
        return e != null ? e : Event.create(false, false);
    }

    private synchronized void recycle(Event e) {
        if (closed || spare.size() >= MAX_SPARE) {
            e.close();
        } else {
            spare.push(e);
        }
    }

    /** A copy on the device, done when its event has completed. */
    private final class Queued implements Pending {
        private Event done;

        Queued(Event done) {
            this.done = done;
        }

        // both on the copy's device, and the calling thread's own device back afterwards: a scheduler thread that
        // also runs CUDA codelets of another GPU keeps its device
        @Override
        public boolean done() {
            Event e = done;
            return e == null || CudaMemory.onDevice(device, e::query);
        }

        @Override
        public void close() {
            Event e = done;
            if (e == null) {
                return;
            }
            done = null;
            CudaMemory.onDevice(device, () -> {
                try {
                    e.synchronize();
                } finally {
                    recycle(e);
                }
                return null;
            });
        }
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
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        CudaMemory.onDevice(device, () -> {
            stream.synchronize(); // copies still queued read the mappings closed below
            open.values().forEach(IpcMemory::close);
            open.clear();
            stream.close();
            synchronized (this) {
                spare.forEach(Event::close);
                spare.clear();
            }
            return null;
        });
    }
}

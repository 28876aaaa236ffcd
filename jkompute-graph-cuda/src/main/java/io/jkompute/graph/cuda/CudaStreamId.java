package io.jkompute.graph.cuda;

import io.jkompute.cuda.Stream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * GXF's {@code CudaStreamId}: names the CUDA stream that the work on a message's tensors was queued on. A codelet
 * gets one from {@link CudaStreamPool#allocateStream()}, queues its work on {@link #stream()}, and adds the id to the
 * messages it publishes ({@code message.add("stream", id)}); a consumer waits for it ({@link CudaStreamSync}, or
 * {@link Stream#synchronize()}) or orders its own stream after it. The stream belongs to the pool: the id is not
 * closed with a message, and goes back with {@link CudaStreamPool#releaseStream(CudaStreamId)}.
 */
public final class CudaStreamId {
    private static final AtomicLong NEXT = new AtomicLong(1);
    /** Live ids by {@link #cid()}, so a bare cid (GXF's {@code stream_cid}, e.g. from Python) finds its stream. */
    private static final Map<Long, CudaStreamId> LIVE = new ConcurrentHashMap<>();

    private final long cid;
    private final Stream stream;
    private final CudaStreamPool pool;

    CudaStreamId(Stream stream, CudaStreamPool pool) {
        this.cid = NEXT.getAndIncrement();
        this.stream = stream;
        this.pool = pool;
        LIVE.put(cid, this);
    }

    /** A number naming this stream in the process (GXF's {@code stream_cid}); never 0. */
    public long cid() {
        return cid;
    }

    /** The jkompute-cuda stream. */
    public Stream stream() {
        return stream;
    }

    /** The native {@code CUstream} handle, for libraries that take a raw stream (CuPy, PyTorch, cuBLAS). */
    public long handle() {
        return stream.handle();
    }

    /** The CUDA device of the stream. */
    public int device() {
        return stream.device();
    }

    /** The pool the stream came from. */
    public CudaStreamPool pool() {
        return pool;
    }

    /** The live id with this cid, or null when none (unknown, or its pool has stopped). */
    public static CudaStreamId forCid(long cid) {
        return LIVE.get(cid);
    }

    /** Forgets the id when its stream is destroyed (its pool deinitializes). */
    void retire() {
        LIVE.remove(cid, this);
    }

    @Override
    public String toString() {
        return "CudaStreamId(cid=" + cid + ", stream=0x" + Long.toHexString(handle()) + ", device=" + device() + ")";
    }
}

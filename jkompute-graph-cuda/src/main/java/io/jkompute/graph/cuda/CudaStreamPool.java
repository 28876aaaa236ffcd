package io.jkompute.graph.cuda;

import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.Stream;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.MemoryBlock;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.StorageType;
import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GXF's {@code nvidia::gxf::CudaStreamPool}: hands out CUDA streams ({@link #allocateStream()}) and takes them back
 * ({@link #releaseStream}). Parameters as in GXF: {@code stream_flags} (0 default, 1 non-blocking: the default, as
 * GXF's cudaStreamNonBlocking), {@code stream_priority} (0; lower is higher priority), {@code reserved_size} (streams
 * made at start, default 1), {@code max_size} (most streams out at once, 0 unlimited; raised to reserved_size when
 * smaller, with a warning, as GXF does). The device is {@code dev_id} when given (GXF 2.x's parameter), else the app's
 * {@link GPUDevice}, else 0. Released streams are kept for reuse; all are destroyed when the graph stops.
 */
public final class CudaStreamPool extends Allocator {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public CudaStreamPool() {
    }

    private static final Logger LOG = LoggerFactory.getLogger(CudaStreamPool.class);
    private static final long CUDA_STREAM_NON_BLOCKING = 1;

    private Parameter<Long> devId;
    private Parameter<Long> streamFlags;
    private Parameter<Long> streamPriority;
    private Parameter<Long> reservedSize;
    private Parameter<Long> maxSize;

    private final ArrayDeque<CudaStreamId> reserved = new ArrayDeque<>();
    private final Set<CudaStreamId> allocated = new LinkedHashSet<>();
    private int device;
    private long max;
    private boolean live;

    @Override
    protected void registerInterface(Registrar r) {
        devId = r.optional("dev_id", ParameterTypes.INT64, "the CUDA device (default: the app's GPUDevice, else 0)");
        streamFlags = r.parameter("stream_flags", ParameterTypes.UINT64,
                "flags of the streams: 0 default, 1 non-blocking", CUDA_STREAM_NON_BLOCKING);
        streamPriority = r.parameter("stream_priority", ParameterTypes.INT64,
                "priority of the streams (lower is higher)", 0L);
        reservedSize = r.parameter("reserved_size", ParameterTypes.UINT64, "streams made at start", 1L);
        maxSize = r.parameter("max_size", ParameterTypes.UINT64, "most streams out at once; 0 unlimited", 0L);
    }

    @Override
    protected void initialize() {
        long flags = streamFlags.get();
        if (flags != 0 && flags != CUDA_STREAM_NON_BLOCKING) {
            throw new IllegalArgumentException("parameter 'stream_flags' is " + flags
                    + "; CUDA stream flags are 0 (default) or 1 (non-blocking)");
        }
        long priority = streamPriority.get();
        if (priority < Integer.MIN_VALUE || priority > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("parameter 'stream_priority' " + priority + " is not an int32");
        }
        long reserve = reservedSize.get();
        max = maxSize.get();
        if (reserve > 0xFFFF_FFFFL || max > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("parameters 'reserved_size' and 'max_size' are uint32");
        }
        if (max != 0 && max < reserve) {
            LOG.warn("{}: max_size {} < reserved_size {}; max_size raised to {}", path(), max, reserve, reserve);
            max = reserve;
        }
        GPUDevice.requireCuda("CudaStreamPool '" + path() + "'");
        if (devId.isSet()) {
            GPUDevice.checkDevice(devId.get());
            device = (int) (long) devId.get();
        } else {
            device = GPUDevice.defaultDevice(graph());
        }
        synchronized (this) {
            live = true;
            try {
                for (long i = 0; i < reserve; i++) {
                    reserved.add(newStream());
                }
            } catch (RuntimeException e) {
                destroyAll();
                throw e;
            }
        }
    }

    @Override
    protected void deinitialize() {
        synchronized (this) {
            if (!allocated.isEmpty()) {
                LOG.debug("{}: {} streams still allocated at shutdown", path(), allocated.size());
            }
            destroyAll();
        }
    }

    private void destroyAll() {
        live = false;
        for (CudaStreamId id : allocated) {
            id.retire();
            id.stream().close();
        }
        for (CudaStreamId id : reserved) {
            id.retire();
            id.stream().close();
        }
        allocated.clear();
        reserved.clear();
    }

    private CudaStreamId newStream() {
        int before = Cuda.getDevice();
        Cuda.setDevice(device);
        try {
            return new CudaStreamId(Stream.create(streamFlags.get() == CUDA_STREAM_NON_BLOCKING,
                    (int) (long) streamPriority.get()), this);
        } finally {
            Cuda.setDevice(before);
        }
    }

    /**
     * A stream for the caller's work, from the reserve or newly made; fails with a clear message when
     * {@code max_size} streams are out, or the pool is not running.
     */
    public synchronized CudaStreamId allocateStream() {
        if (!live) {
            throw new IllegalStateException(path() + ": the stream pool is not running (allocate in start() or tick())");
        }
        if (max != 0 && allocated.size() >= max) {
            throw new IllegalStateException(path() + " reached its capacity (max_size " + max
                    + "): could not allocate more CUDA streams; release one or raise max_size");
        }
        CudaStreamId id = reserved.poll();
        if (id == null) {
            id = newStream();
        }
        allocated.add(id);
        return id;
    }

    /** Gives a stream back for reuse; its queued work is not waited for. */
    public synchronized void releaseStream(CudaStreamId id) {
        if (id == null || id.pool() != this || !allocated.remove(id)) {
            throw new IllegalArgumentException(path() + ": " + id + " was not allocated from this pool"
                    + (id != null && id.pool() == this ? " or was already released" : ""));
        }
        reserved.add(id);
    }

    /** Streams out now. */
    public synchronized int allocatedStreams() {
        return allocated.size();
    }

    /** Streams kept for reuse now. */
    public synchronized int reservedStreams() {
        return reserved.size();
    }

    /** The most streams out at once (after GXF's raise to reserved_size); 0 unlimited. */
    public long maxSize() {
        return max;
    }

    /** The CUDA device the streams are on. */
    public int device() {
        return device;
    }

    @Override
    public synchronized boolean isAvailable(long streams) {
        return live && (max == 0 || allocated.size() + streams <= max);
    }

    /** A stream pool hands out streams, not memory: always refused. */
    @Override
    public MemoryBlock allocate(long bytes, StorageType storage) {
        throw new IllegalArgumentException(path() + " is a CudaStreamPool: it hands out CUDA streams "
                + "(allocateStream()), not memory");
    }
}

package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import io.jkompute.cuda.internal.Driver;
import io.jkompute.cuda.internal.Leaks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A CUDA event: a marker recorded into a stream. It completes when the work queued before it has run, and two
 * completed timing events give the GPU time between them. As with {@code cudaEvent_t}, an event only means
 * something after {@link #record(Stream)}.
 */
public final class Event implements AutoCloseable {
    private static final int CU_EVENT_BLOCKING_SYNC = 1, CU_EVENT_DISABLE_TIMING = 2;
    private static final int CUDA_ERROR_NOT_READY = 600;

    private final int device;
    private final MemorySegment ctx;
    private final MemorySegment handle;
    private Leaks.Tracked tracked;
    private volatile boolean closed;
    private volatile boolean recorded;

    private Event(int device, MemorySegment handle) {
        this.device = device;
        this.ctx = Cuda.context(device);
        this.handle = handle;
    }

    /** A timing event on the calling thread's device; {@link #synchronize()} spins (lowest latency). */
    public static Event create() {
        return create(true, false);
    }

    /**
     * An event on the calling thread's device.
     *
     * @param timing       false for a pure synchronisation marker (cheaper to record)
     * @param blockingSync true: {@link #synchronize()} sleeps instead of spinning (saves a CPU core, costs wake-up latency)
     */
    public static Event create(boolean timing, boolean blockingSync) {
        int dev = Cuda.bindCurrent();
        int flags = (timing ? 0 : CU_EVENT_DISABLE_TIMING) | (blockingSync ? CU_EVENT_BLOCKING_SYNC : 0);
        MemorySegment h;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            Cuda.check(Driver.eventCreate(out, flags), "cuEventCreate");
            h = out.get(ADDRESS, 0);
        }
        MemorySegment ctx = Cuda.context(dev);
        Event e = new Event(dev, h);
        e.tracked = Leaks.track(e, "CUDA event on device " + dev, () -> {
            Driver.ctxSetCurrent(ctx);
            Driver.eventDestroy(h);
        });
        return e;
    }

    /** Records this event into {@code stream}; it completes when the work queued there before it has run. */
    public Event record(Stream stream) {
        if (stream.device() != device) {
            throw new IllegalArgumentException("event of device " + device + " cannot be recorded on a stream of device " + stream.device());
        }
        MemorySegment s = stream.bind();
        Cuda.check(Driver.eventRecord(bind(), s), "cuEventRecord");
        recorded = true;
        return this;
    }

    /** Blocks until the event has completed. */
    public void synchronize() {
        requireRecorded();
        Cuda.check(Driver.eventSynchronize(bind()), "cuEventSynchronize");
    }

    /** Whether the event has completed, without waiting. */
    public boolean query() {
        requireRecorded();
        int rc = Driver.eventQuery(bind());
        if (rc == CUDA_ERROR_NOT_READY) {
            Cuda.record(0);
            return false;
        }
        Cuda.check(rc, "cuEventQuery");
        return true;
    }

    /**
     * Milliseconds of GPU time from {@code start} to this event (resolution about half a microsecond). Both must
     * have been recorded with timing enabled and have completed.
     */
    public float elapsedMillisSince(Event start) {
        start.requireRecorded();
        requireRecorded();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_FLOAT);
            MemorySegment s = start.bind();
            Cuda.check(Driver.eventElapsedTime(out, s, bind()), "cuEventElapsedTime");
            return out.get(JAVA_FLOAT, 0);
        }
    }

    /**
     * PyGPU-style {@code cudaEventElapsedTime}: the milliseconds and the driver's result as a value, never an
     * exception for a driver error. A never-recorded event gives {@code CUDA_ERROR_INVALID_HANDLE} (as the driver
     * reports it), an unfinished one {@code CUDA_ERROR_NOT_READY}; a closed event {@code CUDA_ERROR_INVALID_HANDLE}.
     */
    public CudaResult<Float> tryElapsedMillisSince(Event start) {
        if (closed || start.closed) return CudaResult.failed(Cuda.record(CUDA_ERROR_INVALID_HANDLE));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_FLOAT);
            MemorySegment s = start.handle;
            Cuda.bind(ctx);
            int rc = Driver.eventElapsedTime(out, s, handle);
            CudaError err = Cuda.record(rc);
            return rc == 0 ? CudaResult.of(out.get(JAVA_FLOAT, 0), err) : CudaResult.failed(err);
        }
    }

    private static final int CUDA_ERROR_INVALID_HANDLE = 400;

    /** PyGPU-style {@code cudaEventRecord}: the driver's result as a value. */
    public CudaError tryRecord(Stream stream) {
        if (closed || stream.device() != device) return Cuda.record(CUDA_ERROR_INVALID_HANDLE);
        try {
            record(stream);
            return CudaError.SUCCESS;
        } catch (CudaException e) {
            return e.error();
        }
    }

    /** PyGPU-style {@code cudaEventSynchronize}: the driver's result as a value. */
    public CudaError trySynchronize() {
        if (closed) return Cuda.record(CUDA_ERROR_INVALID_HANDLE);
        Cuda.bind(ctx);
        return Cuda.record(Driver.eventSynchronize(handle));
    }

    /** The raw {@code CUevent} address, for other CUDA libraries. */
    public long handle() {
        return handle.address();
    }

    MemorySegment raw() {
        if (closed) throw new IllegalStateException("event is closed");
        return handle;
    }

    private MemorySegment bind() {
        if (closed) throw new IllegalStateException("event is closed");
        Cuda.bind(ctx);
        return handle;
    }

    private void requireRecorded() {
        if (!recorded) throw new IllegalStateException("event was never recorded: call record(stream) first");
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        Cuda.bind(ctx);
        tracked.close();
    }
}

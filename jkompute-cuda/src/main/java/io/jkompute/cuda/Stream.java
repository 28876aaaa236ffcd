package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;

import io.jkompute.cuda.internal.Driver;
import io.jkompute.cuda.internal.Leaks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A CUDA stream: work queued on one stream runs in order, work on different streams may overlap. Created on the
 * calling thread's device. {@link #defaultStream()} is the device's legacy default stream (handle 0) and is
 * never closed.
 */
public final class Stream implements AutoCloseable {
    private static final int CU_STREAM_NON_BLOCKING = 1;
    private static final int CUDA_ERROR_NOT_READY = 600;

    private final int device;
    private final MemorySegment ctx;
    private final MemorySegment handle;
    private Leaks.Tracked tracked; // null for the default stream
    private volatile boolean closed;

    private Stream(int device, MemorySegment handle) {
        this.device = device;
        this.ctx = Cuda.context(device);
        this.handle = handle;
    }

    /** A new stream on the calling thread's device that does not synchronise with the default stream. */
    public static Stream create() {
        return create(true);
    }

    /**
     * A new stream on the calling thread's device.
     *
     * @param nonBlocking true: no implicit synchronisation with the legacy default stream
     */
    public static Stream create(boolean nonBlocking) {
        return create(nonBlocking, 0);
    }

    /**
     * A new stream on the calling thread's device with a scheduling priority ({@code cuStreamCreateWithPriority}):
     * lower numbers are higher priorities; the driver clamps values outside the device's range, and 0 is the default.
     *
     * @param nonBlocking true: no implicit synchronisation with the legacy default stream
     * @param priority    the stream priority
     */
    public static Stream create(boolean nonBlocking, int priority) {
        int dev = Cuda.bindCurrent();
        MemorySegment h;
        int flags = nonBlocking ? CU_STREAM_NON_BLOCKING : 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            if (priority == 0) {
                Cuda.check(Driver.streamCreate(out, flags), "cuStreamCreate");
            } else {
                Cuda.check(Driver.streamCreateWithPriority(out, flags, priority), "cuStreamCreateWithPriority");
            }
            h = out.get(ADDRESS, 0);
        }
        MemorySegment ctx = Cuda.context(dev);
        Stream s = new Stream(dev, h);
        s.tracked = Leaks.track(s, "CUDA stream on device " + dev, () -> {
            Driver.ctxSetCurrent(ctx);
            Driver.streamDestroy(h);
        });
        return s;
    }

    /** The default (legacy NULL) stream of the calling thread's device. */
    public static Stream defaultStream() {
        int dev = Cuda.bindCurrent();
        return new Stream(dev, MemorySegment.NULL);
    }

    /** The device this stream belongs to. */
    public int device() {
        return device;
    }

    /** Whether this is a device's default stream. */
    public boolean isDefault() {
        return handle.equals(MemorySegment.NULL);
    }

    /** The raw {@code CUstream} address, for passing to other CUDA libraries. */
    public long handle() {
        return handle.address();
    }

    /** Blocks until everything queued on this stream has finished. */
    public void synchronize() {
        Cuda.check(Driver.streamSynchronize(bind()), "cuStreamSynchronize");
    }

    /** PyGPU-style {@code cudaStreamCreate}: {@code (stream, error)}, never an exception for a driver error. */
    public static CudaResult<Stream> tryCreate() {
        try {
            return CudaResult.of(create(), CudaError.SUCCESS);
        } catch (CudaException e) {
            return CudaResult.failed(e.error());
        }
    }

    /** PyGPU-style {@code cudaStreamSynchronize}: the result as a value. */
    public CudaError trySynchronize() {
        if (closed) return Cuda.record(400); // CUDA_ERROR_INVALID_HANDLE
        return Cuda.record(Driver.streamSynchronize(bind()));
    }

    /** Whether everything queued on this stream has finished, without waiting. */
    public boolean query() {
        int rc = Driver.streamQuery(bind());
        if (rc == CUDA_ERROR_NOT_READY) {
            Cuda.record(0);
            return false;
        }
        Cuda.check(rc, "cuStreamQuery");
        return true;
    }

    /**
     * Queues a kernel that another library loaded into this device's primary context, by its raw {@code CUfunction}
     * (CuPy's {@code RawKernel.kernel.ptr}, a Numba or cuda-python function), and returns at once. Kernels of a
     * {@link CudaModule} take Java values through {@link Kernel#launch}; this is the driver's own form:
     * {@code kernelParams} is the {@code void*[]} that {@code cuLaunchKernel} reads, one address per kernel
     * parameter, each pointing at that parameter's value (the driver copies the values during this call).
     *
     * @throws IllegalArgumentException for a null function, a negative shared memory size or parameters that are
     *                                  not native memory
     * @throws CudaException            when the driver refuses the launch (e.g. a block too large for the kernel)
     */
    public void launch(long function, Dim3 grid, Dim3 block, int sharedMemBytes, MemorySegment kernelParams) {
        if (function == 0) throw new IllegalArgumentException("null CUfunction");
        if (sharedMemBytes < 0) throw new IllegalArgumentException("negative shared memory size " + sharedMemBytes);
        if (!kernelParams.isNative()) throw new IllegalArgumentException("kernel parameters must be native memory");
        MemorySegment s = bind();
        int rc = Driver.launchKernel(MemorySegment.ofAddress(function), grid.x(), grid.y(), grid.z(), block.x(),
                block.y(), block.z(), sharedMemBytes, s, kernelParams);
        if (rc != 0) Cuda.check(rc, "cuLaunchKernel");
        else Cuda.record(0);
    }

    /** Makes later work on this stream wait until {@code event} has completed (no host blocking). */
    public void waitFor(Event event) {
        Cuda.check(Driver.streamWaitEvent(bind(), event.raw()), "cuStreamWaitEvent");
    }

    /** Makes this stream's context current and returns the handle; also rejects use after close. */
    MemorySegment bind() {
        if (closed) throw new IllegalStateException("stream is closed");
        Cuda.bind(ctx);
        return handle;
    }

    /** Destroys the stream (work already queued still completes). Closing the default stream does nothing. */
    @Override
    public void close() {
        if (closed || tracked == null) return;
        closed = true;
        Cuda.bind(ctx);
        tracked.close();
    }

    @Override
    public String toString() {
        return isDefault() ? "Stream[default, device " + device + "]" : "Stream[0x" + Long.toHexString(handle()) + ", device " + device + "]";
    }
}

package io.jkompute.cuda;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * PyGPU's low-level {@code DeviceArray_<dtype>}: a host side (a Java array or a memory segment, used in place) and
 * a device side that exists after {@link #allocate()}. {@link #toDevice()} and {@link #toHost()} copy between
 * them. CUDA failures are returned as {@link CudaError} values and kept in {@link #lastStatus()} rather than
 * thrown; misuse (no device side yet, closed, wrong carrier array) still throws.
 * <pre>{@code
 * long[] a = {1, 2, 3, 4, 5, 6};
 * try (DeviceArray da = DeviceArray.int64(a)) {
 *     da.allocate();              // device side
 *     da.toDevice();              // a -> device
 *     kernel.launch(..., da);     // work on da.deviceData()
 *     da.toHost();                // device -> a
 * }
 * }</pre>
 */
public final class DeviceArray implements AutoCloseable {
    private final DType dtype;
    private final MemorySegment host;
    private DeviceMemory device;
    private CudaError last = CudaError.SUCCESS;

    private DeviceArray(DType dtype, MemorySegment host) {
        if (host.byteSize() % dtype.byteSize() != 0) {
            throw new IllegalArgumentException("host data of " + host.byteSize() + " bytes is not a whole number of " + dtype + " elements");
        }
        if (host.byteSize() == 0) throw new IllegalArgumentException("host data is empty");
        this.dtype = dtype;
        this.host = host;
    }

    /** A device array whose host side is {@code javaArray} (of {@code dtype}'s carrier type), used in place. */
    public static DeviceArray of(DType dtype, Object javaArray) {
        Objects.requireNonNull(javaArray, "javaArray");
        return new DeviceArray(dtype, GpuArray.carrierSegment(javaArray, dtype));
    }

    /** A device array whose host side is {@code host} (heap or native; native and pinned allows async copies). */
    public static DeviceArray of(DType dtype, MemorySegment host) {
        return new DeviceArray(dtype, host);
    }

    /** An int16 device array whose host side is {@code a} (not yet allocated on the device). */
    public static DeviceArray int16(short[] a) { return of(DType.INT16, a); }
    /** A uint16 device array whose host side is {@code a} (the same bits; not yet allocated on the device). */
    public static DeviceArray uint16(short[] a) { return of(DType.UINT16, a); }
    /** A float16 device array whose host side is {@code a} (raw half bits; not yet allocated on the device). */
    public static DeviceArray float16(short[] a) { return of(DType.FLOAT16, a); }
    /** An int32 device array whose host side is {@code a} (not yet allocated on the device). */
    public static DeviceArray int32(int[] a) { return of(DType.INT32, a); }
    /** A uint32 device array whose host side is {@code a} (the same bits; not yet allocated on the device). */
    public static DeviceArray uint32(int[] a) { return of(DType.UINT32, a); }
    /** An int64 device array whose host side is {@code a} (not yet allocated on the device). */
    public static DeviceArray int64(long[] a) { return of(DType.INT64, a); }
    /** A uint64 device array whose host side is {@code a} (the same bits; not yet allocated on the device). */
    public static DeviceArray uint64(long[] a) { return of(DType.UINT64, a); }
    /** A float32 device array whose host side is {@code a} (not yet allocated on the device). */
    public static DeviceArray float32(float[] a) { return of(DType.FLOAT32, a); }
    /** A float64 device array whose host side is {@code a} (not yet allocated on the device). */
    public static DeviceArray float64(double[] a) { return of(DType.FLOAT64, a); }
    /** Interleaved (real, imaginary) pairs. */
    public static DeviceArray complex64(float[] a) { return of(DType.COMPLEX64, a); }
    /** Interleaved (real, imaginary) pairs. */
    public static DeviceArray complex128(double[] a) { return of(DType.COMPLEX128, a); }

    /** The element type. */
    public DType dtype() {
        return dtype;
    }

    /** Number of elements. */
    public long size() {
        return host.byteSize() / dtype.byteSize();
    }

    /** The host side. */
    public MemorySegment hostData() {
        return host;
    }

    /** The device address, 0 before {@link #allocate()}. */
    public long deviceData() {
        return device == null ? 0 : device.address();
    }

    /** Whether the device side exists and has not been freed. */
    public boolean isAllocated() {
        return device != null && !device.isClosed();
    }

    /** Allocates the device side on the calling thread's device (a second call does nothing). */
    public CudaError allocate() {
        if (device != null) return status(CudaError.SUCCESS);
        return attempt(() -> device = DeviceMemory.allocate(host.byteSize()));
    }

    /** Copies the host side to the device side and waits. */
    public CudaError toDevice() {
        DeviceMemory d = requireDevice();
        return attempt(() -> d.copyFromHost(host));
    }

    /** Copies the device side back into the host side and waits. */
    public CudaError toHost() {
        DeviceMemory d = requireDevice();
        return attempt(() -> d.copyToHost(host));
    }

    /** Queues the host→device copy on {@code stream}; the host side must be native (ideally pinned) memory. */
    public CudaError toDevice(Stream stream) {
        DeviceMemory d = requireDevice();
        return attempt(() -> d.copyFromHostAsync(host, 0, stream));
    }

    /** Queues the device→host copy on {@code stream}; the host side must be native (ideally pinned) memory. */
    public CudaError toHost(Stream stream) {
        DeviceMemory d = requireDevice();
        return attempt(() -> d.copyToHostAsync(0, host, stream));
    }

    /**
     * Runs one device operation PyGPU-style: a driver error becomes the returned status; a missing driver still throws.
     */
    private CudaError attempt(Runnable op) {
        try {
            op.run();
            return status(CudaError.SUCCESS);
        } catch (CudaUnavailableException e) {
            throw e;
        } catch (CudaException e) {
            return status(e.error());
        }
    }

    /** The result of this array's last device call. */
    public CudaError lastStatus() {
        return last;
    }

    private CudaError status(CudaError e) {
        last = e;
        return e;
    }

    private DeviceMemory requireDevice() {
        if (device == null) throw new IllegalStateException("device side not allocated: call allocate() first");
        if (device.isClosed()) throw new IllegalStateException("device array is closed");
        return device;
    }

    /** Frees the device side (the host side belongs to the caller). */
    @Override
    public void close() {
        if (device != null) device.close();
    }
}

package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jkompute.cuda.internal.Driver;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * Device control, in the shape of the CUDA runtime API: {@link #setDevice(int)} picks the device for the calling
 * thread (as {@code cudaSetDevice} does), and everything created afterwards on that thread belongs to that
 * device's primary context. Objects remember their device and make its context current on whatever thread uses
 * them, so they may be handed between platform threads, pool threads and virtual threads freely.
 * <p>
 * The first call loads the driver; on a machine without it, every entry point throws
 * {@link CudaUnavailableException} saying what to install.
 */
public final class Cuda {
    private Cuda() {}

    private static final Object INIT_LOCK = new Object();
    private static volatile int deviceCount = -1;
    private static volatile MemorySegment[] contexts;
    private static volatile CudaDevice[] devices;
    private static final ThreadLocal<int[]> CURRENT = ThreadLocal.withInitial(() -> new int[1]);
    private static final ThreadLocal<CudaError[]> LAST = ThreadLocal.withInitial(() -> new CudaError[] {CudaError.SUCCESS});

    // device attributes, from cuda.h (CUdevice_attribute)
    private static final int ATTR_MAX_THREADS_PER_BLOCK = 1, ATTR_MAX_SHARED_PER_BLOCK = 8, ATTR_WARP_SIZE = 10,
            ATTR_MULTIPROCESSORS = 16, ATTR_PCI_BUS = 33, ATTR_L2 = 38, ATTR_CC_MAJOR = 75, ATTR_CC_MINOR = 76;

    /** Whether the driver loads and at least one CUDA device is present. Never throws. */
    public static boolean isAvailable() {
        return unavailableReason() == null;
    }

    /** Null when CUDA can be used, else why not (with what to install). Never throws. */
    public static String unavailableReason() {
        try {
            return deviceCount() > 0 ? null : "the CUDA driver loaded but reports no CUDA device";
        } catch (CudaException e) {
            return e.getMessage();
        }
    }

    /** Number of CUDA devices; 0 when the driver is present but sees none. */
    public static int deviceCount() {
        int n = deviceCount;
        if (n >= 0) return n;
        synchronized (INIT_LOCK) {
            if (deviceCount >= 0) return deviceCount;
            try {
                Driver.require();
            } catch (Driver.DriverUnavailable e) {
                throw new CudaUnavailableException(e.getMessage());
            }
            int rc = Driver.init();
            if (rc == 100) { // CUDA_ERROR_NO_DEVICE
                contexts = new MemorySegment[0];
                devices = new CudaDevice[0];
                return deviceCount = 0;
            }
            if (rc != 0) {
                CudaError err = CudaError.of(rc);
                throw new CudaUnavailableException("CUDA is not available: cuInit failed with " + err.name() + " ("
                        + rc + "): " + err.description() + " (driver library " + Driver.library()
                        + "). Check that the NVIDIA kernel module is loaded (`nvidia-smi`) and matches the driver library.");
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(JAVA_INT);
                check(Driver.deviceGetCount(out), "cuDeviceGetCount");
                n = out.get(JAVA_INT, 0);
            }
            contexts = new MemorySegment[n];
            devices = new CudaDevice[n];
            return deviceCount = n;
        }
    }

    /** The CUDA driver version as the driver reports it, e.g. 13000 for CUDA 13.0. */
    public static int driverVersion() {
        deviceCount();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check(Driver.driverGetVersion(out), "cuDriverGetVersion");
            return out.get(JAVA_INT, 0);
        }
    }

    /**
     * Makes {@code device} the calling thread's device and its primary context current on this thread.
     *
     * @throws IllegalArgumentException when no such device exists
     */
    public static void setDevice(int device) {
        checkDevice(device);
        Driver.ctxSetCurrent(context(device));
        CURRENT.get()[0] = device;
    }

    /**
     * PyGPU-style {@code cudaSetDevice}: returns the result as a value and never throws for a device error. An index
     * that names no device gives {@code CUDA_ERROR_INVALID_DEVICE} (101), as {@code cudaSetDevice} does; with no
     * driver at all, {@code CUDA_ERROR_NO_DEVICE} (100).
     */
    public static CudaError trySetDevice(int device) {
        int n;
        try {
            n = deviceCount();
        } catch (CudaUnavailableException e) {
            return record(CUDA_ERROR_NO_DEVICE);
        }
        if (n == 0) return record(CUDA_ERROR_NO_DEVICE);
        if (device < 0 || device >= n) return record(CUDA_ERROR_INVALID_DEVICE);
        int rc;
        try {
            rc = Driver.ctxSetCurrent(context(device));
        } catch (CudaException e) {
            return e.error();
        }
        CudaError err = record(rc);
        if (rc == 0) CURRENT.get()[0] = device;
        return err;
    }

    private static final int CUDA_ERROR_NO_DEVICE = 100, CUDA_ERROR_INVALID_DEVICE = 101;

    /** PyGPU-style {@code cudaGetDevice}: {@code (device, error)}. */
    public static CudaResult<Integer> tryGetDevice() {
        try {
            return CudaResult.of(getDevice(), record(0));
        } catch (CudaUnavailableException e) {
            return CudaResult.failed(record(CUDA_ERROR_NO_DEVICE));
        }
    }

    /** PyGPU-style {@code cudaGetDeviceCount}: {@code (count, error)}; no driver gives {@code CUDA_ERROR_NO_DEVICE}. */
    public static CudaResult<Integer> tryDeviceCount() {
        try {
            int n = deviceCount();
            return n == 0 ? CudaResult.of(0, record(CUDA_ERROR_NO_DEVICE)) : CudaResult.of(n, record(0));
        } catch (CudaUnavailableException e) {
            return CudaResult.failed(record(CUDA_ERROR_NO_DEVICE));
        } catch (CudaException e) {
            return CudaResult.failed(e.error());
        }
    }

    /** PyGPU-style {@code cudaDeviceSynchronize}: the result as a value (a sticky kernel error shows here). */
    public static CudaError trySynchronize() {
        try {
            synchronize();
            return CudaError.SUCCESS;
        } catch (CudaUnavailableException e) {
            return record(CUDA_ERROR_NO_DEVICE);
        } catch (CudaException e) {
            return e.error();
        }
    }

    /** The calling thread's device (0 until {@link #setDevice(int)} is called on this thread). */
    public static int getDevice() {
        deviceCount();
        return CURRENT.get()[0];
    }

    /** Properties of the calling thread's device. */
    public static CudaDevice device() {
        return device(getDevice());
    }

    /** Properties of device {@code index}. */
    public static CudaDevice device(int index) {
        checkDevice(index);
        CudaDevice d = devices[index];
        if (d != null) return d;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocate(256);
            check(Driver.deviceGetName(name, 256, index), "cuDeviceGetName");
            MemorySegment mem = arena.allocate(JAVA_LONG);
            check(Driver.deviceTotalMem(mem, index), "cuDeviceTotalMem");
            MemorySegment uuid = arena.allocate(16);
            check(Driver.deviceGetUuid(uuid, index), "cuDeviceGetUuid");
            ByteBuffer ub = uuid.asByteBuffer();
            d = new CudaDevice(index, name.getString(0), attribute(arena, ATTR_CC_MAJOR, index),
                    attribute(arena, ATTR_CC_MINOR, index), mem.get(JAVA_LONG, 0),
                    attribute(arena, ATTR_MULTIPROCESSORS, index), attribute(arena, ATTR_MAX_THREADS_PER_BLOCK, index),
                    attribute(arena, ATTR_WARP_SIZE, index), attribute(arena, ATTR_MAX_SHARED_PER_BLOCK, index),
                    attribute(arena, ATTR_L2, index), attribute(arena, ATTR_PCI_BUS, index),
                    new UUID(ub.getLong(0), ub.getLong(8)));
        }
        devices[index] = d;
        return d;
    }

    /**
     * The index of the CUDA device whose UUID is {@code uuid} — how a Vulkan device (its {@code deviceUUID}) is
     * matched to a CUDA device for memory sharing.
     *
     * @throws IllegalArgumentException when no CUDA device has that UUID
     */
    public static int deviceWithUuid(UUID uuid) {
        for (int i = 0; i < deviceCount(); i++) {
            if (device(i).uuid().equals(uuid)) return i;
        }
        throw new IllegalArgumentException("no CUDA device has UUID " + uuid + " (the Vulkan device is not an NVIDIA GPU CUDA can see)");
    }

    private static int attribute(Arena arena, int attr, int dev) {
        MemorySegment out = arena.allocate(JAVA_INT);
        check(Driver.deviceGetAttribute(out, attr, dev), "cuDeviceGetAttribute(" + attr + ")");
        return out.get(JAVA_INT, 0);
    }

    /** Waits until all work queued on the calling thread's device has finished ({@code cuCtxSynchronize}). */
    public static void synchronize() {
        bindCurrent();
        check(Driver.ctxSynchronize(), "cuCtxSynchronize");
    }

    /** Free and total memory of the calling thread's device. */
    public static MemoryInfo memoryInfo() {
        bindCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment free = arena.allocate(JAVA_LONG), total = arena.allocate(JAVA_LONG);
            check(Driver.memGetInfo(free, total), "cuMemGetInfo");
            return new MemoryInfo(free.get(JAVA_LONG, 0), total.get(JAVA_LONG, 0));
        }
    }

    /**
     * Frees the device memory that array math keeps cached for reuse (CuPy's {@code free_all_blocks}, PyTorch's
     * {@code empty_cache}), e.g. before another process or library needs it. Arrays still open keep their memory.
     *
     * @return the bytes given back to the driver
     */
    public static long releaseCachedMemory() {
        long bytes = MemoryPool.cachedBytes();
        MemoryPool.release();
        return bytes;
    }

    /**
     * The result of the last driver call this library made on the calling thread, PyGPU's {@code last_status()}:
     * {@link CudaError#SUCCESS} or the error that was also thrown.
     */
    public static CudaError lastStatus() {
        return LAST.get()[0];
    }

    // ---- package-private plumbing shared by the other classes --------------------------------------------

    /** The primary context of {@code device}, retained on first use and kept for the life of the process. */
    static MemorySegment context(int device) {
        MemorySegment ctx = contexts[device];
        if (ctx != null) return ctx;
        synchronized (INIT_LOCK) {
            if (contexts[device] == null) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment out = arena.allocate(ADDRESS);
                    check(Driver.primaryCtxRetain(out, device), "cuDevicePrimaryCtxRetain(" + device + ")");
                    contexts[device] = out.get(ADDRESS, 0);
                }
            }
            return contexts[device];
        }
    }

    /**
     * Makes {@code ctx} current on the calling OS thread. Done before every call instead of cached per thread,
     * because a virtual thread may run on a different carrier thread each time it resumes.
     * <p>
     * Call it as the last step before the driver call, with every argument already computed: a virtual thread
     * moves to another carrier not only where it visibly parks but wherever it blocks on a contended lock
     * (JDK 24+, JEP 491), and ordinary-looking Java does that on first use: building a layout's VarHandle
     * ({@code segment.get(JAVA_INT_UNALIGNED, 0)}) goes through a ConcurrentHashMap.computeIfAbsent that 64 threads
     * entering at once contend on. A bind made before such code is lost with the carrier thread, and the driver call
     * then runs with no context current (CUDA_ERROR_INVALID_CONTEXT) or another device's context.
     */
    static void bind(MemorySegment ctx) {
        int rc = Driver.ctxSetCurrent(ctx);
        if (rc != 0) check(rc, "cuCtxSetCurrent");
    }

    /** Binds the calling thread's device and returns its index. */
    static int bindCurrent() {
        int dev = getDevice();
        checkDevice(dev);
        bind(context(dev));
        return dev;
    }

    static void checkDevice(int device) {
        int n = deviceCount();
        if (n == 0) {
            throw new CudaUnavailableException("CUDA is not available: the driver loaded but reports no CUDA device");
        }
        if (device < 0 || device >= n) {
            throw new IllegalArgumentException("no CUDA device " + device + ": this machine has " + n
                    + " (valid: 0.." + (n - 1) + ")");
        }
    }

    /** Records {@code rc} as the thread's last status and throws {@link CudaException} unless it is success. */
    static void check(int rc, String operation) {
        CudaError err = record(rc);
        if (rc == CUDA_ERROR_INVALID_CONTEXT) throw new CudaException(operation + currentContextNote(), err);
        if (rc != 0) throw new CudaException(operation, err);
    }

    private static final int CUDA_ERROR_INVALID_CONTEXT = 201;

    /** What is current on this OS thread, for an invalid-context error: tells a lost bind from a bad handle. */
    private static String currentContextNote() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc = Driver.ctxGetCurrent(out);
            long current = out.get(ADDRESS, 0).address();
            return " (on thread " + Thread.currentThread() + ", current context "
                    + (rc != 0 ? "unknown" : current == 0 ? "none" : "0x" + Long.toHexString(current)) + ")";
        } catch (RuntimeException e) {
            return "";
        }
    }

    static CudaError record(int rc) {
        CudaError err = CudaError.of(rc);
        LAST.get()[0] = err;
        return err;
    }
}

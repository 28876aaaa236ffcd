package io.jkompute.cuda.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.List;

/**
 * Downcalls into the CUDA driver API ({@code libcuda.so.1}). Every function is bound by its current versioned
 * symbol ({@code cuMemAlloc_v2}, not the legacy 32-bit {@code cuMemAlloc}), the names that CUDA 13's {@code cuda.h}
 * macros expand to; where a newer version may be missing from an older driver the older name is the fallback.
 * Each wrapper returns the raw {@code CUresult}; turning it into an exception is the caller's job.
 * <p>
 * Loading happens once, when this class initialises. A missing library does not fail class initialisation:
 * {@link #require()} throws the one clear "no driver" error at first use instead.
 */
@SuppressWarnings("restricted") // FFM: binding native code is this class's purpose
public final class Driver {
    private Driver() {}

    /**
     * The implementation behind the static wrappers. Every entry point is a {@link DriverApi} method returning the
     * backend's raw result code, so another driver with the same model (HIP: {@code hipMalloc}, {@code hipMemcpy*},
     * {@code hipModuleLaunchKernel}, ...) can stand behind them.
     */
    static final DriverApi API = new CudaDriverApi();

    /** Why the driver cannot be used, or null when it loaded. */
    private static final String UNAVAILABLE;
    private static final String LIBRARY;

    static final MethodHandle cuGetErrorName, cuGetErrorString, cuInit, cuDriverGetVersion, cuDeviceGetCount,
            cuDeviceGet, cuDeviceGetName, cuDeviceTotalMem, cuDeviceGetAttribute, cuDeviceGetUuid,
            cuDevicePrimaryCtxRetain, cuCtxSetCurrent, cuCtxGetCurrent, cuCtxSynchronize, cuMemGetInfo, cuMemAlloc,
            cuMemFree, cuMemHostAlloc, cuMemFreeHost, cuMemcpyHtoD, cuMemcpyHtoDCritical, cuMemcpyDtoH,
            cuMemcpyDtoHCritical, cuMemcpyDtoD, cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemcpyDtoDAsync, cuMemcpy2D,
            cuMemcpy2DAsync, cuMemsetD8, cuMemsetD16, cuMemsetD32, cuMemsetD8Async, cuMemsetD16Async,
            cuMemsetD32Async, cuMemsetD2D8, cuMemsetD2D16, cuMemsetD2D32, cuStreamCreate, cuStreamCreateWithPriority, cuStreamDestroy,
            cuStreamSynchronize, cuStreamQuery, cuStreamWaitEvent, cuEventCreate, cuEventRecord, cuEventSynchronize,
            cuEventQuery, cuEventElapsedTime, cuEventDestroy, cuModuleLoadDataEx, cuModuleUnload,
            cuModuleGetFunction, cuFuncGetAttribute, cuLaunchKernel, cuImportExternalMemory,
            cuExternalMemoryGetMappedBuffer, cuDestroyExternalMemory, cuIpcGetMemHandle, cuIpcOpenMemHandle,
            cuIpcCloseMemHandle;

    /** CUipcMemHandle: 64 opaque bytes, passed by value to cuIpcOpenMemHandle. */
    public static final java.lang.foreign.StructLayout IPC_MEM_HANDLE =
            java.lang.foreign.MemoryLayout.structLayout(java.lang.foreign.MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("reserved"));
    /** CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS: the only flag cuIpcOpenMemHandle takes. */
    public static final int IPC_LAZY_ENABLE_PEER_ACCESS = 1;

    static {
        String unavailable = null;
        String library = "libcuda.so.1";
        Binder b = null;
        try {
            NativeLib lib = NativeLib.open("jkompute.cuda.driver", "JKOMPUTE_CUDA_DRIVER", List.of("libcuda.so.1"),
                    List.of(Path.of("/usr/lib/x86_64-linux-gnu"), Path.of("/usr/lib64"),
                            Path.of("/usr/local/nvidia/lib64"), Path.of("/usr/lib/wsl/lib")));
            library = lib.name();
            b = new Binder(lib);
        } catch (NativeLib.LibraryNotFound e) {
            unavailable = unavailableMessage(e.tried);
        } catch (NativeLib.MissingSymbol e) {
            unavailable = "the CUDA driver is too old for jkompute-cuda: " + e.getMessage()
                    + ". Update the NVIDIA driver (CUDA 12.0 or newer; 580 or newer recommended).";
        }
        UNAVAILABLE = unavailable;
        LIBRARY = library;
        boolean ok = b != null;
        var i = ok ? b : null;
        cuGetErrorName = ok ? i.req("cuGetErrorName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS)) : null;
        cuGetErrorString = ok ? i.req("cuGetErrorString", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS)) : null;
        cuInit = ok ? i.req("cuInit", FunctionDescriptor.of(JAVA_INT, JAVA_INT)) : null;
        cuDriverGetVersion = ok ? i.req("cuDriverGetVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuDeviceGetCount = ok ? i.req("cuDeviceGetCount", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuDeviceGet = ok ? i.req("cuDeviceGet", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)) : null;
        cuDeviceGetName = ok ? i.req("cuDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT)) : null;
        cuDeviceTotalMem = ok ? i.req("cuDeviceTotalMem_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)) : null;
        cuDeviceGetAttribute = ok ? i.req("cuDeviceGetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT)) : null;
        cuDeviceGetUuid = ok ? i.req(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), "cuDeviceGetUuid_v2", "cuDeviceGetUuid") : null;
        cuDevicePrimaryCtxRetain = ok ? i.req("cuDevicePrimaryCtxRetain", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)) : null;
        cuCtxSetCurrent = ok ? i.req("cuCtxSetCurrent", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuCtxGetCurrent = ok ? i.req("cuCtxGetCurrent", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuCtxSynchronize = ok ? i.req("cuCtxSynchronize", FunctionDescriptor.of(JAVA_INT)) : null;
        cuMemGetInfo = ok ? i.req("cuMemGetInfo_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)) : null;
        cuMemAlloc = ok ? i.req("cuMemAlloc_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG)) : null;
        cuMemFree = ok ? i.req("cuMemFree_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG)) : null;
        cuMemHostAlloc = ok ? i.req("cuMemHostAlloc", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT)) : null;
        cuMemFreeHost = ok ? i.req("cuMemFreeHost", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        var htod = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG);
        var dtoh = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG);
        cuMemcpyHtoD = ok ? i.req("cuMemcpyHtoD_v2", htod) : null;
        // critical: lets the driver read a Java heap array in place; GC waits meanwhile, so callers chunk big copies
        cuMemcpyHtoDCritical = ok ? i.req(htod, Binder.CRITICAL, "cuMemcpyHtoD_v2") : null;
        cuMemcpyDtoH = ok ? i.req("cuMemcpyDtoH_v2", dtoh) : null;
        cuMemcpyDtoHCritical = ok ? i.req(dtoh, Binder.CRITICAL, "cuMemcpyDtoH_v2") : null;
        cuMemcpyDtoD = ok ? i.req("cuMemcpyDtoD_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG)) : null;
        cuMemcpyHtoDAsync = ok ? i.req("cuMemcpyHtoDAsync_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS)) : null;
        cuMemcpyDtoHAsync = ok ? i.req("cuMemcpyDtoHAsync_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS)) : null;
        cuMemcpyDtoDAsync = ok ? i.req("cuMemcpyDtoDAsync_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS)) : null;
        cuMemcpy2D = ok ? i.req("cuMemcpy2D_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuMemcpy2DAsync = ok ? i.req("cuMemcpy2DAsync_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)) : null;
        cuMemsetD8 = ok ? i.req("cuMemsetD8_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG)) : null;
        cuMemsetD16 = ok ? i.req("cuMemsetD16_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_SHORT, JAVA_LONG)) : null;
        cuMemsetD32 = ok ? i.req("cuMemsetD32_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG)) : null;
        cuMemsetD8Async = ok ? i.req("cuMemsetD8Async", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG, ADDRESS)) : null;
        cuMemsetD16Async = ok ? i.req("cuMemsetD16Async", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_SHORT, JAVA_LONG, ADDRESS)) : null;
        cuMemsetD32Async = ok ? i.req("cuMemsetD32Async", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, ADDRESS)) : null;
        cuMemsetD2D8 = ok ? i.req("cuMemsetD2D8_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_BYTE, JAVA_LONG, JAVA_LONG)) : null;
        cuMemsetD2D16 = ok ? i.req("cuMemsetD2D16_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_SHORT, JAVA_LONG, JAVA_LONG)) : null;
        cuMemsetD2D32 = ok ? i.req("cuMemsetD2D32_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG)) : null;
        cuStreamCreate = ok ? i.req("cuStreamCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)) : null;
        cuStreamCreateWithPriority = ok ? i.req("cuStreamCreateWithPriority", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT)) : null;
        cuStreamDestroy = ok ? i.req("cuStreamDestroy_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuStreamSynchronize = ok ? i.req("cuStreamSynchronize", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuStreamQuery = ok ? i.req("cuStreamQuery", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuStreamWaitEvent = ok ? i.req("cuStreamWaitEvent", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT)) : null;
        cuEventCreate = ok ? i.req("cuEventCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)) : null;
        cuEventRecord = ok ? i.req("cuEventRecord", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)) : null;
        cuEventSynchronize = ok ? i.req("cuEventSynchronize", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuEventQuery = ok ? i.req("cuEventQuery", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuEventElapsedTime = ok ? i.req(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), "cuEventElapsedTime_v2", "cuEventElapsedTime") : null;
        cuEventDestroy = ok ? i.req("cuEventDestroy_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuModuleLoadDataEx = ok ? i.req("cuModuleLoadDataEx", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS)) : null;
        cuModuleUnload = ok ? i.req("cuModuleUnload", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuModuleGetFunction = ok ? i.req("cuModuleGetFunction", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS)) : null;
        cuFuncGetAttribute = ok ? i.req("cuFuncGetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS)) : null;
        cuLaunchKernel = ok ? i.req("cuLaunchKernel", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS)) : null;
        cuImportExternalMemory = ok ? i.req("cuImportExternalMemory", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)) : null;
        cuExternalMemoryGetMappedBuffer = ok ? i.req("cuExternalMemoryGetMappedBuffer", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS)) : null;
        cuDestroyExternalMemory = ok ? i.req("cuDestroyExternalMemory", FunctionDescriptor.of(JAVA_INT, ADDRESS)) : null;
        cuIpcGetMemHandle = ok ? i.req("cuIpcGetMemHandle", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG)) : null;
        // the handle is a 64-byte struct passed by value: the FFM linker classifies it as the C ABI does
        cuIpcOpenMemHandle = ok ? i.req(FunctionDescriptor.of(JAVA_INT, ADDRESS, IPC_MEM_HANDLE, JAVA_INT),
                "cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle") : null;
        cuIpcCloseMemHandle = ok ? i.req("cuIpcCloseMemHandle", FunctionDescriptor.of(JAVA_INT, JAVA_LONG)) : null;
    }

    /** The text of the "no driver" error: what was tried and what to install. */
    static String unavailableMessage(List<String> tried) {
        return "CUDA is not available: the NVIDIA driver library libcuda.so.1 was not found (tried "
                + String.join(", ", tried) + "). Install the NVIDIA driver for your GPU, e.g. on Ubuntu "
                + "`sudo apt install nvidia-driver-580` (or `sudo ubuntu-drivers install`), on RHEL/Fedora "
                + "`sudo dnf install nvidia-driver-cuda`; in a container run with the NVIDIA Container Toolkit "
                + "(`docker run --gpus all ...`). To use a driver library elsewhere set -Djkompute.cuda.driver=/path/to/libcuda.so.1.";
    }

    /** Null when the driver loaded, else the reason it cannot be used. */
    public static String unavailableReason() {
        return UNAVAILABLE;
    }

    /** The library that was loaded (or that was looked for). */
    public static String library() {
        return LIBRARY;
    }

    /** @throws DriverUnavailable with the install hint when the driver could not be loaded */
    public static void require() {
        if (UNAVAILABLE != null) {
            throw new DriverUnavailable(UNAVAILABLE);
        }
    }

    /** Signals a missing or unusable driver; the API layer turns it into its public exception. */
    public static final class DriverUnavailable extends RuntimeException {
        DriverUnavailable(String message) {
            super(message);
        }
    }

    private static final class Binder {
        static final Linker.Option[] NONE = new Linker.Option[0];
        static final Linker.Option[] CRITICAL = {Linker.Option.critical(true)};
        final NativeLib lib;

        Binder(NativeLib lib) {
            this.lib = lib;
            // bind one symbol eagerly so a library that is not a CUDA driver fails here, not at first call
            req("cuInit", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        }

        MethodHandle req(String symbol, FunctionDescriptor fd) {
            return req(fd, NONE, symbol);
        }

        MethodHandle req(FunctionDescriptor fd, String... symbols) {
            return req(fd, NONE, symbols);
        }

        MethodHandle req(FunctionDescriptor fd, Linker.Option[] options, String... symbols) {
            return lib.find(fd, options, symbols).orElseThrow(() -> new NativeLib.MissingSymbol(lib.name(), symbols[0]));
        }
    }

    // ---- wrappers: each returns the CUresult --------------------------------------------------------------

    static RuntimeException fatal(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }

    public static int getErrorName(int code, MemorySegment out) {
        return API.getErrorName(code, out);
    }

    public static int getErrorString(int code, MemorySegment out) {
        return API.getErrorString(code, out);
    }

    public static int init() {
        return API.init();
    }

    public static int driverGetVersion(MemorySegment out) {
        return API.driverGetVersion(out);
    }

    public static int deviceGetCount(MemorySegment out) {
        return API.deviceGetCount(out);
    }

    public static int deviceGet(MemorySegment out, int ordinal) {
        return API.deviceGet(out, ordinal);
    }

    public static int deviceGetName(MemorySegment out, int len, int dev) {
        return API.deviceGetName(out, len, dev);
    }

    public static int deviceTotalMem(MemorySegment out, int dev) {
        return API.deviceTotalMem(out, dev);
    }

    public static int deviceGetAttribute(MemorySegment out, int attr, int dev) {
        return API.deviceGetAttribute(out, attr, dev);
    }

    public static int deviceGetUuid(MemorySegment out16, int dev) {
        return API.deviceGetUuid(out16, dev);
    }

    public static int primaryCtxRetain(MemorySegment out, int dev) {
        return API.primaryCtxRetain(out, dev);
    }

    public static int ctxSetCurrent(MemorySegment ctx) {
        return API.ctxSetCurrent(ctx);
    }

    public static int ctxGetCurrent(MemorySegment out) {
        return API.ctxGetCurrent(out);
    }

    public static int ctxSynchronize() {
        return API.ctxSynchronize();
    }

    public static int memGetInfo(MemorySegment free, MemorySegment total) {
        return API.memGetInfo(free, total);
    }

    public static int memAlloc(MemorySegment out, long bytes) {
        return API.memAlloc(out, bytes);
    }

    public static int memFree(long dptr) {
        return API.memFree(dptr);
    }

    /** cuIpcGetMemHandle: writes the 64-byte handle of the allocation at {@code dptr} into {@code out64}. */
    public static int ipcGetMemHandle(MemorySegment out64, long dptr) {
        return API.ipcGetMemHandle(out64, dptr);
    }

    /** cuIpcOpenMemHandle: maps another process's allocation into this context; the address goes to {@code out}. */
    public static int ipcOpenMemHandle(MemorySegment out, MemorySegment handle64, int flags) {
        return API.ipcOpenMemHandle(out, handle64, flags);
    }

    /** cuIpcCloseMemHandle: unmaps an address that {@link #ipcOpenMemHandle} returned. */
    public static int ipcCloseMemHandle(long dptr) {
        return API.ipcCloseMemHandle(dptr);
    }

    public static int memHostAlloc(MemorySegment out, long bytes, int flags) {
        return API.memHostAlloc(out, bytes, flags);
    }

    public static int memFreeHost(MemorySegment p) {
        return API.memFreeHost(p);
    }

    /** Synchronous host→device copy; {@code src} may be a heap segment only if {@code bytes} is small (critical). */
    public static int memcpyHtoD(long dst, MemorySegment src, long bytes) {
        return API.memcpyHtoD(dst, src, bytes);
    }

    /** Synchronous device→host copy; {@code dst} may be a heap segment only if {@code bytes} is small (critical). */
    public static int memcpyDtoH(MemorySegment dst, long src, long bytes) {
        return API.memcpyDtoH(dst, src, bytes);
    }

    public static int memcpyDtoD(long dst, long src, long bytes) {
        return API.memcpyDtoD(dst, src, bytes);
    }

    public static int memcpyHtoDAsync(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        return API.memcpyHtoDAsync(dst, src, bytes, stream);
    }

    public static int memcpyDtoHAsync(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        return API.memcpyDtoHAsync(dst, src, bytes, stream);
    }

    public static int memcpyDtoDAsync(long dst, long src, long bytes, MemorySegment stream) {
        return API.memcpyDtoDAsync(dst, src, bytes, stream);
    }

    public static int memcpy2D(MemorySegment desc) {
        return API.memcpy2D(desc);
    }

    public static int memcpy2DAsync(MemorySegment desc, MemorySegment stream) {
        return API.memcpy2DAsync(desc, stream);
    }

    public static int memsetD8(long dst, byte v, long n, MemorySegment stream) {
        return API.memsetD8(dst, v, n, stream);
    }

    public static int memsetD16(long dst, short v, long n, MemorySegment stream) {
        return API.memsetD16(dst, v, n, stream);
    }

    public static int memsetD32(long dst, int v, long n, MemorySegment stream) {
        return API.memsetD32(dst, v, n, stream);
    }

    public static int memsetD2D8(long dst, long pitch, byte v, long width, long height) {
        return API.memsetD2D8(dst, pitch, v, width, height);
    }

    public static int memsetD2D16(long dst, long pitch, short v, long width, long height) {
        return API.memsetD2D16(dst, pitch, v, width, height);
    }

    public static int memsetD2D32(long dst, long pitch, int v, long width, long height) {
        return API.memsetD2D32(dst, pitch, v, width, height);
    }

    public static int streamCreate(MemorySegment out, int flags) {
        return API.streamCreate(out, flags);
    }

    public static int streamCreateWithPriority(MemorySegment out, int flags, int priority) {
        return API.streamCreateWithPriority(out, flags, priority);
    }

    public static int streamDestroy(MemorySegment s) {
        return API.streamDestroy(s);
    }

    public static int streamSynchronize(MemorySegment s) {
        return API.streamSynchronize(s);
    }

    public static int streamQuery(MemorySegment s) {
        return API.streamQuery(s);
    }

    public static int streamWaitEvent(MemorySegment s, MemorySegment e) {
        return API.streamWaitEvent(s, e);
    }

    public static int eventCreate(MemorySegment out, int flags) {
        return API.eventCreate(out, flags);
    }

    public static int eventRecord(MemorySegment e, MemorySegment s) {
        return API.eventRecord(e, s);
    }

    public static int eventSynchronize(MemorySegment e) {
        return API.eventSynchronize(e);
    }

    public static int eventQuery(MemorySegment e) {
        return API.eventQuery(e);
    }

    public static int eventElapsedTime(MemorySegment outMs, MemorySegment start, MemorySegment end) {
        return API.eventElapsedTime(outMs, start, end);
    }

    public static int eventDestroy(MemorySegment e) {
        return API.eventDestroy(e);
    }

    public static int moduleLoadDataEx(MemorySegment out, MemorySegment image, int n, MemorySegment opts, MemorySegment vals) {
        return API.moduleLoadDataEx(out, image, n, opts, vals);
    }

    public static int moduleUnload(MemorySegment m) {
        return API.moduleUnload(m);
    }

    public static int moduleGetFunction(MemorySegment out, MemorySegment m, MemorySegment name) {
        return API.moduleGetFunction(out, m, name);
    }

    public static int funcGetAttribute(MemorySegment out, int attr, MemorySegment f) {
        return API.funcGetAttribute(out, attr, f);
    }

    public static int launchKernel(MemorySegment f, int gx, int gy, int gz, int bx, int by, int bz, int shmem,
                                   MemorySegment stream, MemorySegment params) {
        return API.launchKernel(f, gx, gy, gz, bx, by, bz, shmem, stream, params);
    }

    public static int importExternalMemory(MemorySegment out, MemorySegment desc) {
        return API.importExternalMemory(out, desc);
    }

    public static int externalMemoryGetMappedBuffer(MemorySegment out, MemorySegment ext, MemorySegment desc) {
        return API.externalMemoryGetMappedBuffer(out, ext, desc);
    }

    public static int destroyExternalMemory(MemorySegment ext) {
        return API.destroyExternalMemory(ext);
    }

    private static final MethodHandle CLOSE = NativeLib.LINKER.downcallHandle(
            NativeLib.LINKER.defaultLookup().find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    /** libc {@code close(fd)}: gives back a file descriptor that an import did not take over. */
    public static int closeFd(int fd) {
        return API.closeFd(fd);
    }

    /** The CUDA driver as a {@link DriverApi}: the wrappers above delegate here. */
    private static final class CudaDriverApi implements DriverApi {
        @Override
        public int getErrorName(int code, MemorySegment out) {
            try { return (int) cuGetErrorName.invokeExact(code, out); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int getErrorString(int code, MemorySegment out) {
            try { return (int) cuGetErrorString.invokeExact(code, out); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int init() {
            try { return (int) cuInit.invokeExact(0); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int driverGetVersion(MemorySegment out) {
            try { return (int) cuDriverGetVersion.invokeExact(out); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int deviceGetCount(MemorySegment out) {
            try { return (int) cuDeviceGetCount.invokeExact(out); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int deviceGet(MemorySegment out, int ordinal) {
            try { return (int) cuDeviceGet.invokeExact(out, ordinal); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int deviceGetName(MemorySegment out, int len, int dev) {
            try { return (int) cuDeviceGetName.invokeExact(out, len, dev); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int deviceTotalMem(MemorySegment out, int dev) {
            try { return (int) cuDeviceTotalMem.invokeExact(out, dev); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int deviceGetAttribute(MemorySegment out, int attr, int dev) {
            try { return (int) cuDeviceGetAttribute.invokeExact(out, attr, dev); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int deviceGetUuid(MemorySegment out16, int dev) {
            try { return (int) cuDeviceGetUuid.invokeExact(out16, dev); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int primaryCtxRetain(MemorySegment out, int dev) {
            try { return (int) cuDevicePrimaryCtxRetain.invokeExact(out, dev); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int ctxSetCurrent(MemorySegment ctx) {
            try { return (int) cuCtxSetCurrent.invokeExact(ctx); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int ctxGetCurrent(MemorySegment out) {
            try { return (int) cuCtxGetCurrent.invokeExact(out); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int ctxSynchronize() {
            try { return (int) cuCtxSynchronize.invokeExact(); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memGetInfo(MemorySegment free, MemorySegment total) {
            try { return (int) cuMemGetInfo.invokeExact(free, total); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memAlloc(MemorySegment out, long bytes) {
            try { return (int) cuMemAlloc.invokeExact(out, bytes); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memFree(long dptr) {
            try { return (int) cuMemFree.invokeExact(dptr); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int ipcGetMemHandle(MemorySegment out64, long dptr) {
            try { return (int) cuIpcGetMemHandle.invokeExact(out64, dptr); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int ipcOpenMemHandle(MemorySegment out, MemorySegment handle64, int flags) {
            try { return (int) cuIpcOpenMemHandle.invokeExact(out, handle64, flags); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int ipcCloseMemHandle(long dptr) {
            try { return (int) cuIpcCloseMemHandle.invokeExact(dptr); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memHostAlloc(MemorySegment out, long bytes, int flags) {
            try { return (int) cuMemHostAlloc.invokeExact(out, bytes, flags); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memFreeHost(MemorySegment p) {
            try { return (int) cuMemFreeHost.invokeExact(p); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memcpyHtoD(long dst, MemorySegment src, long bytes) {
            try {
                return src.isNative() ? (int) cuMemcpyHtoD.invokeExact(dst, src, bytes)
                        : (int) cuMemcpyHtoDCritical.invokeExact(dst, src, bytes);
            } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memcpyDtoH(MemorySegment dst, long src, long bytes) {
            try {
                return dst.isNative() ? (int) cuMemcpyDtoH.invokeExact(dst, src, bytes)
                        : (int) cuMemcpyDtoHCritical.invokeExact(dst, src, bytes);
            } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memcpyDtoD(long dst, long src, long bytes) {
            try { return (int) cuMemcpyDtoD.invokeExact(dst, src, bytes); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memcpyHtoDAsync(long dst, MemorySegment src, long bytes, MemorySegment stream) {
            try { return (int) cuMemcpyHtoDAsync.invokeExact(dst, src, bytes, stream); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memcpyDtoHAsync(MemorySegment dst, long src, long bytes, MemorySegment stream) {
            try { return (int) cuMemcpyDtoHAsync.invokeExact(dst, src, bytes, stream); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memcpyDtoDAsync(long dst, long src, long bytes, MemorySegment stream) {
            try { return (int) cuMemcpyDtoDAsync.invokeExact(dst, src, bytes, stream); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memcpy2D(MemorySegment desc) {
            try { return (int) cuMemcpy2D.invokeExact(desc); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memcpy2DAsync(MemorySegment desc, MemorySegment stream) {
            try { return (int) cuMemcpy2DAsync.invokeExact(desc, stream); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memsetD8(long dst, byte v, long n, MemorySegment stream) {
            try {
                return stream == null ? (int) cuMemsetD8.invokeExact(dst, v, n) : (int) cuMemsetD8Async.invokeExact(dst, v, n, stream);
            } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memsetD16(long dst, short v, long n, MemorySegment stream) {
            try {
                return stream == null ? (int) cuMemsetD16.invokeExact(dst, v, n) : (int) cuMemsetD16Async.invokeExact(dst, v, n, stream);
            } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memsetD32(long dst, int v, long n, MemorySegment stream) {
            try {
                return stream == null ? (int) cuMemsetD32.invokeExact(dst, v, n) : (int) cuMemsetD32Async.invokeExact(dst, v, n, stream);
            } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memsetD2D8(long dst, long pitch, byte v, long width, long height) {
            try { return (int) cuMemsetD2D8.invokeExact(dst, pitch, v, width, height); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memsetD2D16(long dst, long pitch, short v, long width, long height) {
            try { return (int) cuMemsetD2D16.invokeExact(dst, pitch, v, width, height); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int memsetD2D32(long dst, long pitch, int v, long width, long height) {
            try { return (int) cuMemsetD2D32.invokeExact(dst, pitch, v, width, height); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int streamCreate(MemorySegment out, int flags) {
            try { return (int) cuStreamCreate.invokeExact(out, flags); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int streamCreateWithPriority(MemorySegment out, int flags, int priority) {
            try { return (int) cuStreamCreateWithPriority.invokeExact(out, flags, priority); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int streamDestroy(MemorySegment s) {
            try { return (int) cuStreamDestroy.invokeExact(s); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int streamSynchronize(MemorySegment s) {
            try { return (int) cuStreamSynchronize.invokeExact(s); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int streamQuery(MemorySegment s) {
            try { return (int) cuStreamQuery.invokeExact(s); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int streamWaitEvent(MemorySegment s, MemorySegment e) {
            try { return (int) cuStreamWaitEvent.invokeExact(s, e, 0); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int eventCreate(MemorySegment out, int flags) {
            try { return (int) cuEventCreate.invokeExact(out, flags); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int eventRecord(MemorySegment e, MemorySegment s) {
            try { return (int) cuEventRecord.invokeExact(e, s); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int eventSynchronize(MemorySegment e) {
            try { return (int) cuEventSynchronize.invokeExact(e); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int eventQuery(MemorySegment e) {
            try { return (int) cuEventQuery.invokeExact(e); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int eventElapsedTime(MemorySegment outMs, MemorySegment start, MemorySegment end) {
            try { return (int) cuEventElapsedTime.invokeExact(outMs, start, end); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int eventDestroy(MemorySegment e) {
            try { return (int) cuEventDestroy.invokeExact(e); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int moduleLoadDataEx(MemorySegment out, MemorySegment image, int n, MemorySegment opts, MemorySegment vals) {
            try { return (int) cuModuleLoadDataEx.invokeExact(out, image, n, opts, vals); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int moduleUnload(MemorySegment m) {
            try { return (int) cuModuleUnload.invokeExact(m); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int moduleGetFunction(MemorySegment out, MemorySegment m, MemorySegment name) {
            try { return (int) cuModuleGetFunction.invokeExact(out, m, name); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int funcGetAttribute(MemorySegment out, int attr, MemorySegment f) {
            try { return (int) cuFuncGetAttribute.invokeExact(out, attr, f); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int launchKernel(MemorySegment f, int gx, int gy, int gz, int bx, int by, int bz, int shmem,
                               MemorySegment stream, MemorySegment params) {
            try {
                return (int) cuLaunchKernel.invokeExact(f, gx, gy, gz, bx, by, bz, shmem, stream, params, MemorySegment.NULL);
            } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int importExternalMemory(MemorySegment out, MemorySegment desc) {
            try { return (int) cuImportExternalMemory.invokeExact(out, desc); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int externalMemoryGetMappedBuffer(MemorySegment out, MemorySegment ext, MemorySegment desc) {
            try { return (int) cuExternalMemoryGetMappedBuffer.invokeExact(out, ext, desc); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int destroyExternalMemory(MemorySegment ext) {
            try { return (int) cuDestroyExternalMemory.invokeExact(ext); } catch (Throwable t) { throw fatal(t); }
        }

        @Override
        public int closeFd(int fd) {
            try { return (int) CLOSE.invokeExact(fd); } catch (Throwable t) { throw fatal(t); }
        }
    }

    // ---- struct layouts ----------------------------------------------------------------------------------

    /** CUDA_MEMCPY2D (128 bytes); offsets checked against CUDA 13's cuda.h with offsetof. */
    public static final class Memcpy2D {
        public static final long SIZE = 128;
        public static final long SRC_MEMORY_TYPE = 16, SRC_HOST = 24, SRC_DEVICE = 32, SRC_PITCH = 48;
        public static final long DST_MEMORY_TYPE = 72, DST_HOST = 80, DST_DEVICE = 88, DST_PITCH = 104;
        public static final long WIDTH = 112, HEIGHT = 120;
        public static final int HOST = 1, DEVICE = 2;

        private Memcpy2D() {}
    }

    /** Allocates an out-parameter slot for a pointer-sized value. */
    public static MemorySegment pointerSlot(Arena arena) {
        return arena.allocate(ADDRESS);
    }

}

package io.jkompute.bench.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.HexFormat;

/**
 * The raw CUDA baseline: minimal FFM downcalls into the CUDA driver API ({@code libcuda.so.1}) on device 0's primary
 * context, the kernels of {@link CudaKernels}, the legacy default stream. Written here rather than taken from
 * jkompute-cuda so that the baseline has no library code in it.
 */
public final class RawCuda implements AutoCloseable {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final int CU_MEMHOSTALLOC_PORTABLE = 1;

    private final Arena arena = Arena.ofShared();
    private final SymbolLookup lib;
    private final MethodHandle cuGetErrorName, cuCtxSynchronize, cuMemAlloc, cuMemFree, cuMemHostAlloc, cuMemFreeHost,
            cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD, cuLaunchKernel, cuEventCreate, cuEventRecord, cuEventSynchronize,
            cuEventElapsedTime, cuEventDestroy, cuModuleGetFunction, cuModuleUnload, cuDevicePrimaryCtxRelease,
            cuMemsetD32, cuStreamCreate, cuStreamSynchronize, cuStreamDestroy, cuStreamBeginCapture, cuStreamEndCapture,
            cuGraphInstantiate, cuGraphLaunch, cuGraphExecDestroy, cuGraphDestroy;
    private final int device;
    private final MemorySegment module;
    private final String name;
    private final String uuidHex;
    private final int driverVersion;
    private final MemorySegment floatOut = arena.allocate(JAVA_FLOAT);
    private final MemorySegment ptrOut = arena.allocate(ADDRESS);
    private boolean closed;

    /** A kernel launch with its argument block made once, so a launch allocates nothing. */
    public final class Launch {
        private final MemorySegment function;
        private final MemorySegment params;
        private final int grid, block;

        Launch(MemorySegment function, int grid, int block, Object... args) {
            this.function = function;
            this.grid = grid;
            this.block = block;
            params = arena.allocate(ADDRESS, args.length);
            for (int i = 0; i < args.length; i++) {
                MemorySegment cell;
                switch (args[i]) {
                    case Float f -> cell = arena.allocateFrom(JAVA_FLOAT, f);
                    case Integer n -> cell = arena.allocateFrom(JAVA_INT, n);
                    case Long p -> cell = arena.allocateFrom(JAVA_LONG, p);
                    default -> throw new IllegalArgumentException("kernel argument " + args[i]);
                }
                params.setAtIndex(ADDRESS, i, cell);
            }
        }

        public void launch() {
            launch(MemorySegment.NULL);
        }

        /** On {@code stream} (NULL: the legacy default stream). */
        public void launch(MemorySegment stream) {
            int r;
            try {
                r = (int) cuLaunchKernel.invokeExact(function, grid, 1, 1, block, 1, 1, 0, stream, params,
                        MemorySegment.NULL);
            } catch (Throwable t) {
                throw rethrow(t);
            }
            check(r, "cuLaunchKernel");
        }
    }

    private RawCuda(SymbolLookup lib) {
        this.lib = lib;
        cuGetErrorName = fn("cuGetErrorName", JAVA_INT, JAVA_INT, ADDRESS);
        MethodHandle cuInit = fn("cuInit", JAVA_INT, JAVA_INT);
        check(invokeInt(cuInit, 0), "cuInit");
        MethodHandle getVersion = fn("cuDriverGetVersion", JAVA_INT, ADDRESS);
        MemorySegment iOut = arena.allocate(JAVA_INT);
        check(invokeInt(getVersion, iOut), "cuDriverGetVersion");
        driverVersion = iOut.get(JAVA_INT, 0);
        check(invokeInt(fn("cuDeviceGet", JAVA_INT, ADDRESS, JAVA_INT), iOut, 0), "cuDeviceGet");
        device = iOut.get(JAVA_INT, 0);
        MemorySegment nameBuf = arena.allocate(256);
        check(invokeInt(fn("cuDeviceGetName", JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), nameBuf, 256, device), "cuDeviceGetName");
        name = nameBuf.getString(0);
        MemorySegment uuid = arena.allocate(16);
        check(invokeInt(fn("cuDeviceGetUuid", JAVA_INT, ADDRESS, JAVA_INT), uuid, device), "cuDeviceGetUuid");
        uuidHex = HexFormat.of().formatHex(uuid.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        check(invokeInt(fn("cuDevicePrimaryCtxRetain", JAVA_INT, ADDRESS, JAVA_INT), ptrOut, device), "cuDevicePrimaryCtxRetain");
        MemorySegment ctx = ptrOut.get(ADDRESS, 0);
        check(invokeInt(fn("cuCtxSetCurrent", JAVA_INT, ADDRESS), ctx), "cuCtxSetCurrent");
        cuDevicePrimaryCtxRelease = fn("cuDevicePrimaryCtxRelease_v2", JAVA_INT, JAVA_INT);
        cuCtxSynchronize = fn("cuCtxSynchronize", JAVA_INT);
        cuMemAlloc = fn("cuMemAlloc_v2", JAVA_INT, ADDRESS, JAVA_LONG);
        cuMemFree = fn("cuMemFree_v2", JAVA_INT, JAVA_LONG);
        cuMemHostAlloc = fn("cuMemHostAlloc", JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
        cuMemFreeHost = fn("cuMemFreeHost", JAVA_INT, ADDRESS);
        cuMemcpyHtoD = fn("cuMemcpyHtoD_v2", JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG);
        cuMemcpyDtoH = fn("cuMemcpyDtoH_v2", JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG);
        cuMemcpyDtoD = fn("cuMemcpyDtoD_v2", JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG);
        cuLaunchKernel = fn("cuLaunchKernel", JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        cuEventCreate = fn("cuEventCreate", JAVA_INT, ADDRESS, JAVA_INT);
        cuEventRecord = fn("cuEventRecord", JAVA_INT, ADDRESS, ADDRESS);
        cuEventSynchronize = fn("cuEventSynchronize", JAVA_INT, ADDRESS);
        cuEventElapsedTime = fn("cuEventElapsedTime", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        cuEventDestroy = fn("cuEventDestroy_v2", JAVA_INT, ADDRESS);
        cuModuleGetFunction = fn("cuModuleGetFunction", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        cuModuleUnload = fn("cuModuleUnload", JAVA_INT, ADDRESS);
        cuMemsetD32 = fn("cuMemsetD32_v2", JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG);
        cuStreamCreate = fn("cuStreamCreate", JAVA_INT, ADDRESS, JAVA_INT);
        cuStreamSynchronize = fn("cuStreamSynchronize", JAVA_INT, ADDRESS);
        cuStreamDestroy = fn("cuStreamDestroy_v2", JAVA_INT, ADDRESS);
        cuStreamBeginCapture = fn("cuStreamBeginCapture_v2", JAVA_INT, ADDRESS, JAVA_INT);
        cuStreamEndCapture = fn("cuStreamEndCapture", JAVA_INT, ADDRESS, ADDRESS);
        cuGraphInstantiate = fn("cuGraphInstantiateWithFlags", JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG);
        cuGraphLaunch = fn("cuGraphLaunch", JAVA_INT, ADDRESS, ADDRESS);
        cuGraphExecDestroy = fn("cuGraphExecDestroy", JAVA_INT, ADDRESS);
        cuGraphDestroy = fn("cuGraphDestroy", JAVA_INT, ADDRESS);
        check(invokeInt(fn("cuModuleLoadData", JAVA_INT, ADDRESS, ADDRESS), ptrOut, arena.allocateFrom(CudaKernels.PTX)),
                "cuModuleLoadData");
        module = ptrOut.get(ADDRESS, 0);
    }

    /**
     * Opens the CUDA driver on device 0, or returns null when there is none; {@code why[0]} then says why.
     */
    public static RawCuda openOrNull(String[] why) {
        SymbolLookup lib;
        try {
            lib = SymbolLookup.libraryLookup("libcuda.so.1", Arena.global());
        } catch (IllegalArgumentException e) {
            why[0] = "no CUDA driver (libcuda.so.1 not found)";
            return null;
        }
        try {
            return new RawCuda(lib);
        } catch (RuntimeException e) {
            why[0] = "CUDA driver present but unusable: " + e.getMessage();
            return null;
        }
    }

    public String deviceName() {
        return name;
    }

    public String deviceUuidHex() {
        return uuidHex;
    }

    /** e.g. "13.0". */
    public String driverVersion() {
        return driverVersion / 1000 + "." + (driverVersion % 1000) / 10;
    }

    private MethodHandle fn(String symbol, MemoryLayout ret, MemoryLayout... args) {
        MemorySegment addr = lib.find(symbol).orElseThrow(() -> new IllegalStateException("libcuda lacks " + symbol));
        return LINKER.downcallHandle(addr, FunctionDescriptor.of(ret, args));
    }

    private static int invokeInt(MethodHandle h, Object... args) {
        try {
            return (int) h.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private void check(int r, String what) {
        if (r != 0) {
            String n = "CUresult " + r;
            try {
                MemorySegment p = arena.allocate(ADDRESS);
                if ((int) cuGetErrorName.invokeExact(r, p) == 0) {
                    n = p.get(ADDRESS, 0).reinterpret(64).getString(0);
                }
            } catch (Throwable ignored) {
                // keep the number
            }
            throw new IllegalStateException("raw CUDA baseline: " + what + " failed: " + n);
        }
    }

    public long malloc(long bytes) {
        check(invokeInt(cuMemAlloc, ptrOut, bytes), "cuMemAlloc_v2(" + bytes + ")");
        return ptrOut.get(JAVA_LONG, 0);
    }

    public void free(long dptr) {
        check(invokeInt(cuMemFree, dptr), "cuMemFree_v2");
    }

    /** Page-locked host memory (cuMemHostAlloc), the fastest source and target of host copies. */
    public MemorySegment hostAlloc(long bytes) {
        check(invokeInt(cuMemHostAlloc, ptrOut, bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc(" + bytes + ")");
        return ptrOut.get(ADDRESS, 0).reinterpret(bytes);
    }

    public void freeHost(MemorySegment p) {
        check(invokeInt(cuMemFreeHost, p), "cuMemFreeHost");
    }

    public void copyHtoD(long dst, MemorySegment src, long bytes) {
        int r;
        try {
            r = (int) cuMemcpyHtoD.invokeExact(dst, src, bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(r, "cuMemcpyHtoD_v2");
    }

    public void copyDtoH(MemorySegment dst, long src, long bytes) {
        int r;
        try {
            r = (int) cuMemcpyDtoH.invokeExact(dst, src, bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(r, "cuMemcpyDtoH_v2");
    }

    public void copyDtoD(long dst, long src, long bytes) {
        check(invokeInt(cuMemcpyDtoD, dst, src, bytes), "cuMemcpyDtoD_v2");
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }

    public Launch kernel(String name, int grid, int block, Object... args) {
        check(invokeInt(cuModuleGetFunction, ptrOut, module, arena.allocateFrom(name)), "cuModuleGetFunction(" + name + ")");
        return new Launch(ptrOut.get(ADDRESS, 0), grid, block, args);
    }

    public void synchronize() {
        int r;
        try {
            r = (int) cuCtxSynchronize.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(r, "cuCtxSynchronize");
    }

    /** Fills {@code count} 32-bit words at {@code dptr} with {@code value} (synchronous for the host). */
    public void fill32(long dptr, int value, long count) {
        check(invokeInt(cuMemsetD32, dptr, value, count), "cuMemsetD32_v2");
    }

    /** A non-blocking stream (CU_STREAM_NON_BLOCKING), as CuPy's {@code Stream(non_blocking=True)}. */
    public MemorySegment stream() {
        check(invokeInt(cuStreamCreate, ptrOut, 1), "cuStreamCreate");
        return ptrOut.get(ADDRESS, 0);
    }

    public void synchronize(MemorySegment stream) {
        int r;
        try {
            r = (int) cuStreamSynchronize.invokeExact(stream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(r, "cuStreamSynchronize");
    }

    public void destroyStream(MemorySegment stream) {
        check(invokeInt(cuStreamDestroy, stream), "cuStreamDestroy_v2");
    }

    /**
     * Captures what {@code work} launches on {@code stream} into a CUDA graph and instantiates it; capturing runs
     * nothing. The graph itself is destroyed at once (the executable keeps what it needs).
     */
    public MemorySegment captureGraph(MemorySegment stream, Runnable work) {
        check(invokeInt(cuStreamBeginCapture, stream, 0), "cuStreamBeginCapture_v2"); // CU_STREAM_CAPTURE_MODE_GLOBAL
        try {
            work.run();
        } finally {
            check(invokeInt(cuStreamEndCapture, stream, ptrOut), "cuStreamEndCapture");
        }
        MemorySegment graph = ptrOut.get(ADDRESS, 0);
        try {
            check(invokeInt(cuGraphInstantiate, ptrOut, graph, 0L), "cuGraphInstantiateWithFlags");
            return ptrOut.get(ADDRESS, 0);
        } finally {
            check(invokeInt(cuGraphDestroy, graph), "cuGraphDestroy");
        }
    }

    public void launchGraph(MemorySegment exec, MemorySegment stream) {
        int r;
        try {
            r = (int) cuGraphLaunch.invokeExact(exec, stream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(r, "cuGraphLaunch");
    }

    public void destroyGraph(MemorySegment exec) {
        check(invokeInt(cuGraphExecDestroy, exec), "cuGraphExecDestroy");
    }

    public MemorySegment event() {
        check(invokeInt(cuEventCreate, ptrOut, 0), "cuEventCreate");
        return ptrOut.get(ADDRESS, 0);
    }

    public void record(MemorySegment event) {
        int r;
        try {
            r = (int) cuEventRecord.invokeExact(event, MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(r, "cuEventRecord");
    }

    /** Milliseconds between two recorded events (waits for the second). */
    public float elapsedMillis(MemorySegment start, MemorySegment end) {
        check(invokeInt(cuEventSynchronize, end), "cuEventSynchronize");
        check(invokeInt(cuEventElapsedTime, floatOut, start, end), "cuEventElapsedTime");
        return floatOut.get(JAVA_FLOAT, 0);
    }

    public void destroyEvent(MemorySegment e) {
        check(invokeInt(cuEventDestroy, e), "cuEventDestroy_v2");
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        invokeInt(cuModuleUnload, module);
        invokeInt(cuDevicePrimaryCtxRelease, device);
        arena.close();
    }
}

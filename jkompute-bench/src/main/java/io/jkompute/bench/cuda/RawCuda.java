package io.jkompute.bench.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;

/**
 * The baseline: the fewest FFM calls that run saxpy, with no checks, no context binding per call and one argument
 * block built once. What jkompute-cuda's GpuArray + Kernel path is measured against.
 */
@SuppressWarnings("restricted")
final class RawCuda implements AutoCloseable {
    private static final Linker L = Linker.nativeLinker();
    private static final SymbolLookup CUDA = SymbolLookup.libraryLookup("libcuda.so.1", Arena.global());

    private static MethodHandle h(String name, FunctionDescriptor fd) {
        return L.downcallHandle(CUDA.find(name).orElseThrow(), fd);
    }

    private static final MethodHandle cuInit = h("cuInit", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle cuDevicePrimaryCtxRetain = h("cuDevicePrimaryCtxRetain", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle cuCtxSetCurrent = h("cuCtxSetCurrent", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle cuModuleLoadData = h("cuModuleLoadData", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle cuModuleGetFunction = h("cuModuleGetFunction", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle cuModuleUnload = h("cuModuleUnload", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle cuMemAlloc = h("cuMemAlloc_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle cuMemFree = h("cuMemFree_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    private static final MethodHandle cuMemcpyHtoD = h("cuMemcpyHtoD_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG));
    private static final MethodHandle cuStreamCreate = h("cuStreamCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle cuStreamDestroy = h("cuStreamDestroy_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle cuStreamSynchronize = h("cuStreamSynchronize", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle cuLaunchKernel = h("cuLaunchKernel", FunctionDescriptor.of(JAVA_INT, ADDRESS,
            JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment module, function, stream;
    final long x, y;
    private final MemorySegment params;
    private final int n;

    RawCuda(int n, float a, float[] hostX, float[] hostY) throws Throwable {
        this.n = n;
        ok((int) cuInit.invokeExact(0));
        MemorySegment out = arena.allocate(ADDRESS);
        ok((int) cuDevicePrimaryCtxRetain.invokeExact(out, 0));
        ok((int) cuCtxSetCurrent.invokeExact(out.get(ADDRESS, 0)));
        ok((int) cuModuleLoadData.invokeExact(out, arena.allocateFrom(SaxpyKernel.PTX, StandardCharsets.UTF_8)));
        module = out.get(ADDRESS, 0);
        ok((int) cuModuleGetFunction.invokeExact(out, module, arena.allocateFrom("saxpy")));
        function = out.get(ADDRESS, 0);
        ok((int) cuStreamCreate.invokeExact(out, 1));
        stream = out.get(ADDRESS, 0);
        x = alloc(4L * n);
        y = alloc(4L * n);
        ok((int) cuMemcpyHtoD.invokeExact(x, arena.allocateFrom(JAVA_FLOAT, hostX), 4L * n));
        ok((int) cuMemcpyHtoD.invokeExact(y, arena.allocateFrom(JAVA_FLOAT, hostY), 4L * n));
        params = arena.allocate(ADDRESS, 4);
        MemorySegment vals = arena.allocate(32, 8);
        vals.set(JAVA_INT, 0, n);
        vals.set(JAVA_FLOAT, 8, a);
        vals.set(JAVA_LONG, 16, x);
        vals.set(JAVA_LONG, 24, y);
        for (int i = 0; i < 4; i++) params.setAtIndex(ADDRESS, i, vals.asSlice(8L * i));
    }

    /** Makes the primary context current on the calling thread (done once per thread by the baseline's caller). */
    void bindContext() throws Throwable {
        MemorySegment out = arena.allocate(ADDRESS);
        ok((int) cuDevicePrimaryCtxRetain.invokeExact(out, 0));
        ok((int) cuCtxSetCurrent.invokeExact(out.get(ADDRESS, 0)));
    }

    private long alloc(long bytes) throws Throwable {
        MemorySegment out = arena.allocate(JAVA_LONG);
        ok((int) cuMemAlloc.invokeExact(out, bytes));
        return out.get(JAVA_LONG, 0);
    }

    void launch() throws Throwable {
        int rc = (int) cuLaunchKernel.invokeExact(function, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, params, MemorySegment.NULL);
        if (rc != 0) throw new IllegalStateException("cuLaunchKernel " + rc);
    }

    void synchronize() throws Throwable {
        int rc = (int) cuStreamSynchronize.invokeExact(stream);
        if (rc != 0) throw new IllegalStateException("cuStreamSynchronize " + rc);
    }

    private static void ok(int rc) {
        if (rc != 0) throw new IllegalStateException("CUDA error " + rc);
    }

    @Override
    public void close() {
        try {
            ok((int) cuMemFree.invokeExact(x));
            ok((int) cuMemFree.invokeExact(y));
            ok((int) cuStreamDestroy.invokeExact(stream));
            ok((int) cuModuleUnload.invokeExact(module));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        } finally {
            arena.close();
        }
    }
}

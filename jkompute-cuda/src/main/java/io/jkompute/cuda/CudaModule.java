package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jkompute.cuda.internal.Driver;
import io.jkompute.cuda.internal.Leaks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Device code loaded into the calling thread's device: PTX (JIT-compiled by the driver), cubin or fatbin, or CUDA
 * C++ compiled at run time by NVRTC. Named {@code CudaModule} rather than {@code Module} so it does not shadow
 * {@link java.lang.Module}. Closing it unloads the code; its {@link Kernel}s become unusable.
 */
public final class CudaModule implements AutoCloseable {
    private static final int CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
    private static final int LOG_SIZE = 16 * 1024;

    private final int device;
    private final MemorySegment ctx;
    private final MemorySegment handle;
    private final ConcurrentHashMap<String, Kernel> kernels = new ConcurrentHashMap<>();
    private Leaks.Tracked tracked;
    private volatile boolean closed;

    private CudaModule(int device, MemorySegment handle) {
        this.device = device;
        this.ctx = Cuda.context(device);
        this.handle = handle;
    }

    /** Loads PTX text. */
    public static CudaModule loadPtx(String ptx) {
        return load(ptx.getBytes(StandardCharsets.UTF_8));
    }

    /** Loads a .ptx, .cubin or .fatbin file. */
    public static CudaModule load(Path file) {
        try {
            return load(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read CUDA module " + file, e);
        }
    }

    /**
     * Loads an image: PTX text, a cubin (ELF) or a fatbin. PTX JIT errors come back in the exception message.
     *
     * @throws CudaException carrying the driver's JIT log when the image does not load
     */
    public static CudaModule load(byte[] image) {
        if (image.length == 0) throw new IllegalArgumentException("empty module image");
        int dev = Cuda.bindCurrent();
        try (Arena arena = Arena.ofConfined()) {
            // PTX must be NUL-terminated; a trailing NUL is harmless after an ELF or fatbin image
            MemorySegment img = arena.allocate(image.length + 1L, 16);
            MemorySegment.copy(image, 0, img, JAVA_BYTE, 0, image.length);
            MemorySegment log = arena.allocate(LOG_SIZE);
            MemorySegment opts = arena.allocate(JAVA_INT, 2);
            opts.setAtIndex(JAVA_INT, 0, CU_JIT_ERROR_LOG_BUFFER);
            opts.setAtIndex(JAVA_INT, 1, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
            MemorySegment vals = arena.allocate(ADDRESS, 2);
            vals.setAtIndex(ADDRESS, 0, log);
            vals.setAtIndex(JAVA_LONG, 1, LOG_SIZE); // option values are pointer-sized; sizes go in by value
            MemorySegment out = arena.allocate(ADDRESS);
            Cuda.bind(Cuda.context(dev)); // again: the option writes above may have moved a virtual thread
            int rc = Driver.moduleLoadDataEx(out, img, 2, opts, vals);
            if (rc != 0) {
                CudaError err = Cuda.record(rc);
                String jit = log.getString(0).strip();
                throw new CudaModuleException("cuModuleLoadDataEx", err, jit);
            }
            Cuda.record(0);
            CudaModule m = new CudaModule(dev, out.get(ADDRESS, 0));
            MemorySegment h = m.handle, ctx = m.ctx;
            m.tracked = Leaks.track(m, "CUDA module on device " + dev, () -> {
                Driver.ctxSetCurrent(ctx);
                Driver.moduleUnload(h);
            });
            return m;
        }
    }

    /**
     * Compiles CUDA C++ with NVRTC for the calling thread's device and loads it. Unless {@code options} name an
     * architecture, the code is compiled to a cubin for this device's {@code sm_XY}.
     *
     * @throws NvrtcException with the compiler log on a compile error
     */
    public static CudaModule compile(String source, String... options) {
        List<String> opts = new ArrayList<>(Arrays.asList(options));
        if (opts.stream().noneMatch(o -> o.startsWith("--gpu-architecture") || o.startsWith("-arch"))) {
            opts.add("--gpu-architecture=" + Cuda.device().architecture());
        }
        Nvrtc.Program p = Nvrtc.compile(source, "kernel.cu", opts);
        return load(p.image());
    }

    /** The kernel named {@code name} (an {@code extern "C"} name, or the mangled C++ name). */
    public Kernel kernel(String name) {
        checkOpen();
        return kernels.computeIfAbsent(name, this::lookup);
    }

    private Kernel lookup(String name) {
        bind();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc = Driver.moduleGetFunction(out, handle, arena.allocateFrom(name));
            if (rc == 500) { // CUDA_ERROR_NOT_FOUND
                Cuda.record(rc);
                throw new IllegalArgumentException("no kernel named '" + name + "' in this module (C++ kernels need extern \"C\" to keep their name)");
            }
            Cuda.check(rc, "cuModuleGetFunction(" + name + ")");
            return new Kernel(this, name, out.get(ADDRESS, 0));
        }
    }

    /** The device the code was loaded into. */
    public int device() {
        return device;
    }

    /** The raw {@code CUmodule} address. */
    public long handle() {
        return handle.address();
    }

    MemorySegment context() {
        return ctx;
    }

    void bind() {
        checkOpen();
        Cuda.bind(ctx);
    }

    void checkOpen() {
        if (closed) throw new IllegalStateException("CUDA module is closed");
    }

    /** Unloads the module. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        Cuda.bind(ctx);
        tracked.close();
    }

    /** A module image did not load; the message includes the driver's JIT log when it wrote one. */
    public static final class CudaModuleException extends CudaException {
        /** The driver's JIT log; empty when it wrote none. */
        private final String jitLog;

        CudaModuleException(String operation, CudaError error, String jitLog) {
            super(operation + " failed: " + error.name() + " (" + error.code() + "): " + error.description()
                    + (jitLog.isEmpty() ? "" : "\nJIT log:\n" + jitLog), error, null);
            this.jitLog = jitLog;
        }

        /** The driver's JIT error log (empty for cubin images). */
        public String jitLog() {
            return jitLog;
        }
    }
}

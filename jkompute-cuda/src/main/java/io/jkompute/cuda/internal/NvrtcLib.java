package io.jkompute.cuda.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Downcalls into NVRTC, the run-time CUDA C++ compiler. NVRTC ships with the CUDA toolkit or NVIDIA's
 * redistributable wheels, not with the driver, so it is looked for separately and only when first needed.
 */
@SuppressWarnings("restricted") // FFM: binding native code is this class's purpose
public final class NvrtcLib {
    private NvrtcLib() {}

    private static final String UNAVAILABLE;
    static final MethodHandle nvrtcVersion, nvrtcCreateProgram, nvrtcCompileProgram, nvrtcGetProgramLogSize,
            nvrtcGetProgramLog, nvrtcGetPTXSize, nvrtcGetPTX, nvrtcGetCUBINSize, nvrtcGetCUBIN, nvrtcDestroyProgram,
            nvrtcGetErrorString;

    static {
        String unavailable = null;
        NativeLib lib = null;
        List<Path> dirs = new ArrayList<>();
        for (String env : new String[] {"CUDA_HOME", "CUDA_PATH"}) {
            String v = System.getenv(env);
            if (v != null) dirs.add(Path.of(v, "lib64"));
        }
        dirs.add(Path.of("/usr/local/cuda/lib64"));
        dirs.add(Path.of("/usr/local/cuda/targets/x86_64-linux/lib"));
        dirs.add(Path.of("/usr/lib/x86_64-linux-gnu"));
        try {
            lib = NativeLib.open("jkompute.cuda.nvrtc", "JKOMPUTE_CUDA_NVRTC",
                    List.of("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"), dirs);
        } catch (NativeLib.LibraryNotFound e) {
            unavailable = "NVRTC (the CUDA run-time compiler) was not found (tried " + String.join(", ", e.tried)
                    + "). Install the CUDA toolkit's NVRTC, e.g. `sudo apt install cuda-nvrtc-13-0` from NVIDIA's repository "
                    + "or `pip install nvidia-cuda-nvrtc`, and point -Djkompute.cuda.nvrtc=/path/to/libnvrtc.so.13 at it "
                    + "if it is not on the loader path. Precompiled PTX or cubin (CudaModule.load) needs no NVRTC.";
        }
        MethodHandle[] h = new MethodHandle[11];
        if (lib != null) {
            Linker.Option[] none = new Linker.Option[0];
            String[] names = {"nvrtcVersion", "nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetProgramLogSize",
                    "nvrtcGetProgramLog", "nvrtcGetPTXSize", "nvrtcGetPTX", "nvrtcGetCUBINSize", "nvrtcGetCUBIN",
                    "nvrtcDestroyProgram", "nvrtcGetErrorString"};
            FunctionDescriptor[] fds = {
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS),
                    FunctionDescriptor.of(ADDRESS, JAVA_INT)};
            for (int i = 0; i < names.length; i++) {
                final String n = names[i];
                final NativeLib l = lib;
                var found = lib.find(fds[i], none, n);
                if (found.isEmpty()) {
                    unavailable = l.name() + " does not export " + n + "; install NVRTC 12.0 or newer";
                    break;
                }
                h[i] = found.get();
            }
        }
        UNAVAILABLE = unavailable;
        boolean ok = unavailable == null;
        nvrtcVersion = ok ? h[0] : null;
        nvrtcCreateProgram = ok ? h[1] : null;
        nvrtcCompileProgram = ok ? h[2] : null;
        nvrtcGetProgramLogSize = ok ? h[3] : null;
        nvrtcGetProgramLog = ok ? h[4] : null;
        nvrtcGetPTXSize = ok ? h[5] : null;
        nvrtcGetPTX = ok ? h[6] : null;
        nvrtcGetCUBINSize = ok ? h[7] : null;
        nvrtcGetCUBIN = ok ? h[8] : null;
        nvrtcDestroyProgram = ok ? h[9] : null;
        nvrtcGetErrorString = ok ? h[10] : null;
    }

    /** Null when NVRTC loaded, else why not (with what to install). */
    public static String unavailableReason() {
        return UNAVAILABLE;
    }

    public static int version(MemorySegment major, MemorySegment minor) {
        try { return (int) nvrtcVersion.invokeExact(major, minor); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int createProgram(MemorySegment out, MemorySegment src, MemorySegment name) {
        try {
            return (int) nvrtcCreateProgram.invokeExact(out, src, name, 0, MemorySegment.NULL, MemorySegment.NULL);
        } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int compileProgram(MemorySegment prog, int n, MemorySegment options) {
        try { return (int) nvrtcCompileProgram.invokeExact(prog, n, options); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int getProgramLogSize(MemorySegment prog, MemorySegment out) {
        try { return (int) nvrtcGetProgramLogSize.invokeExact(prog, out); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int getProgramLog(MemorySegment prog, MemorySegment out) {
        try { return (int) nvrtcGetProgramLog.invokeExact(prog, out); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int getPTXSize(MemorySegment prog, MemorySegment out) {
        try { return (int) nvrtcGetPTXSize.invokeExact(prog, out); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int getPTX(MemorySegment prog, MemorySegment out) {
        try { return (int) nvrtcGetPTX.invokeExact(prog, out); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int getCUBINSize(MemorySegment prog, MemorySegment out) {
        try { return (int) nvrtcGetCUBINSize.invokeExact(prog, out); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int getCUBIN(MemorySegment prog, MemorySegment out) {
        try { return (int) nvrtcGetCUBIN.invokeExact(prog, out); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int destroyProgram(MemorySegment progSlot) {
        try { return (int) nvrtcDestroyProgram.invokeExact(progSlot); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static String errorString(int code) {
        try {
            MemorySegment p = (MemorySegment) nvrtcGetErrorString.invokeExact(code);
            return p.equals(MemorySegment.NULL) ? "NVRTC error " + code : p.reinterpret(1024).getString(0);
        } catch (Throwable t) { throw Driver.fatal(t); }
    }
}

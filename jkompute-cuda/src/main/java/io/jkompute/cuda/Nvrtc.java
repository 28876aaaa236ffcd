package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jkompute.cuda.internal.NvrtcLib;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Run-time compilation of CUDA C++ with NVRTC. With an {@code sm_XY} architecture option the result is a cubin
 * (machine code, loads on that architecture without a JIT step); with {@code compute_XY} or none, PTX.
 * Kernels meant to be looked up by name should be declared {@code extern "C"}.
 */
public final class Nvrtc {
    private Nvrtc() {}

    /**
     * Compiled code.
     *
     * @param image PTX text (NUL-free) or cubin bytes, ready for {@link CudaModule#load(byte[])}
     * @param cubin whether {@code image} is a cubin
     * @param log   the compiler's log (warnings), possibly empty
     */
    public record Program(byte[] image, boolean cubin, String log) {}

    /** Whether NVRTC can be loaded here. */
    public static boolean isAvailable() {
        return NvrtcLib.unavailableReason() == null;
    }

    /** NVRTC's version as {major, minor}. */
    public static int[] version() {
        require();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(JAVA_INT), b = arena.allocate(JAVA_INT);
            check(NvrtcLib.version(a, b), "nvrtcVersion", null);
            return new int[] {a.get(JAVA_INT, 0), b.get(JAVA_INT, 0)};
        }
    }

    /**
     * Compiles {@code source}.
     *
     * @param name    the file name used in error messages, e.g. "saxpy.cu"
     * @param options NVRTC options, e.g. {@code --gpu-architecture=sm_90}, {@code -default-device}, {@code -DN=4}
     * @throws NvrtcException with the compiler log when compilation fails
     */
    public static Program compile(String source, String name, List<String> options) {
        require();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment progSlot = arena.allocate(ADDRESS);
            check(NvrtcLib.createProgram(progSlot, arena.allocateFrom(source), arena.allocateFrom(name)), "nvrtcCreateProgram", null);
            MemorySegment prog = progSlot.get(ADDRESS, 0);
            try {
                MemorySegment opts = arena.allocate(ADDRESS, Math.max(1, options.size()));
                for (int i = 0; i < options.size(); i++) opts.setAtIndex(ADDRESS, i, arena.allocateFrom(options.get(i)));
                int rc = NvrtcLib.compileProgram(prog, options.size(), opts);
                String log = log(arena, prog);
                if (rc != 0) {
                    throw new NvrtcException("NVRTC could not compile " + name + " (" + NvrtcLib.errorString(rc) + ")", rc, log);
                }
                boolean cubin = options.stream().anyMatch(o -> o.matches("(--gpu-architecture=|-arch=?)sm_\\w+"));
                MemorySegment size = arena.allocate(JAVA_LONG);
                byte[] image;
                if (cubin) {
                    check(NvrtcLib.getCUBINSize(prog, size), "nvrtcGetCUBINSize", log);
                    MemorySegment buf = arena.allocate(size.get(JAVA_LONG, 0));
                    check(NvrtcLib.getCUBIN(prog, buf), "nvrtcGetCUBIN", log);
                    image = buf.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                } else {
                    check(NvrtcLib.getPTXSize(prog, size), "nvrtcGetPTXSize", log);
                    MemorySegment buf = arena.allocate(size.get(JAVA_LONG, 0));
                    check(NvrtcLib.getPTX(prog, buf), "nvrtcGetPTX", log);
                    // the PTX size counts the terminating NUL; the module loader adds its own
                    image = buf.asSlice(0, buf.byteSize() - 1).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                }
                return new Program(image, cubin, log);
            } finally {
                NvrtcLib.destroyProgram(progSlot);
            }
        }
    }

    private static String log(Arena arena, MemorySegment prog) {
        MemorySegment size = arena.allocate(JAVA_LONG);
        if (NvrtcLib.getProgramLogSize(prog, size) != 0 || size.get(JAVA_LONG, 0) <= 1) return "";
        MemorySegment buf = arena.allocate(size.get(JAVA_LONG, 0));
        if (NvrtcLib.getProgramLog(prog, buf) != 0) return "";
        return buf.getString(0);
    }

    private static void check(int rc, String what, String log) {
        if (rc != 0) throw new NvrtcException(what + " failed (" + NvrtcLib.errorString(rc) + ")", rc, log);
    }

    private static void require() {
        String why = NvrtcLib.unavailableReason();
        if (why != null) throw new CudaUnavailableException(why);
    }
}

package io.jkompute.cuda.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Downcalls into cuBLAS ({@code libcublas.so.13}/{@code .12}), found at run time like the driver: the loader path,
 * {@code $CUDA_HOME/lib64}, {@code /usr/local/cuda/lib64}, the {@code nvidia-cublas} Python wheel's directory
 * (where pip-installed CuPy and PyTorch keep it); override with {@code -Djkompute.cuda.cublas=/path}. Only GEMM is
 * bound: {@code cublasGemmEx} and {@code cublasGemmStridedBatchedEx}. Each wrapper returns the {@code cublasStatus_t}.
 */
@SuppressWarnings("restricted")
public final class Cublas {
    private Cublas() {}

    private static final String UNAVAILABLE;
    private static final MethodHandle create, destroy, setStream, gemmEx, gemmStridedBatchedEx;

    public static final int OP_N = 0, OP_T = 1;
    public static final int R_32F = 0, R_64F = 1, R_16F = 2, R_16BF = 14;
    public static final int COMPUTE_32F = 68, COMPUTE_64F = 70;
    public static final int GEMM_DEFAULT = -1;

    static {
        String why = null;
        MethodHandle c = null, d = null, s = null, g = null, gb = null;
        try {
            List<Path> dirs = new ArrayList<>();
            String home = System.getenv("CUDA_HOME");
            if (home != null) dirs.add(Path.of(home, "lib64"));
            dirs.add(Path.of("/usr/local/cuda/lib64"));
            dirs.add(Path.of("/usr/local/cuda/targets/x86_64-linux/lib"));
            dirs.add(Path.of("/usr/lib/x86_64-linux-gnu"));
            for (String py : pythonSitePackages()) {
                dirs.add(Path.of(py, "nvidia", "cu13", "lib"));
                dirs.add(Path.of(py, "nvidia", "cublas", "lib"));
            }
            NativeLib lib = NativeLib.open("jkompute.cuda.cublas", "JKOMPUTE_CUDA_CUBLAS",
                    List.of("libcublas.so.13", "libcublas.so.12", "libcublas.so"), dirs);
            Linker.Option[] none = new Linker.Option[0];
            c = lib.find(FunctionDescriptor.of(JAVA_INT, ADDRESS), none, "cublasCreate_v2").orElseThrow();
            d = lib.find(FunctionDescriptor.of(JAVA_INT, ADDRESS), none, "cublasDestroy_v2").orElseThrow();
            s = lib.find(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), none, "cublasSetStream_v2").orElseThrow();
            g = lib.find(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS,
                    JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
                    none, "cublasGemmEx").orElseThrow();
            gb = lib.find(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS,
                    JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_INT,
                    JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT), none, "cublasGemmStridedBatchedEx").orElseThrow();
        } catch (NativeLib.LibraryNotFound e) {
            why = "cuBLAS is not available (matmul needs it): libcublas was not found (tried " + String.join(", ", e.tried)
                    + "). Install it with the CUDA toolkit (`sudo apt install libcublas-13-0` from NVIDIA's repository) or "
                    + "`pip install nvidia-cublas`, or point -Djkompute.cuda.cublas=/path/to/libcublas.so.13 at it.";
        } catch (RuntimeException e) {
            why = "cuBLAS is not usable: " + e;
        }
        UNAVAILABLE = why;
        create = c;
        destroy = d;
        setStream = s;
        gemmEx = g;
        gemmStridedBatchedEx = gb;
    }

    private static List<String> pythonSitePackages() {
        List<String> out = new ArrayList<>();
        for (String root : List.of("/usr/local/lib", "/usr/lib", "/opt/torch/.venv/lib")) {
            Path r = Path.of(root);
            if (!Files.isDirectory(r)) continue;
            try (var s = Files.list(r)) {
                s.filter(p -> p.getFileName().toString().startsWith("python3")).forEach(p -> {
                    out.add(p.resolve("site-packages").toString());
                    out.add(p.resolve("dist-packages").toString());
                });
            } catch (java.io.IOException ignored) {
                // an unreadable directory is simply not searched
            }
        }
        return out;
    }

    /** Null when cuBLAS loaded, else why not (with what to install). */
    public static String unavailableReason() {
        return UNAVAILABLE;
    }

    public static int create(MemorySegment out) {
        try { return (int) create.invokeExact(out); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int destroy(MemorySegment h) {
        try { return (int) destroy.invokeExact(h); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int setStream(MemorySegment h, MemorySegment stream) {
        try { return (int) setStream.invokeExact(h, stream); } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int gemmEx(MemorySegment h, int ta, int tb, int m, int n, int k, MemorySegment alpha, long a, int at, int lda,
                             long b, int bt, int ldb, MemorySegment beta, long c, int ct, int ldc, int compute, int algo) {
        try {
            return (int) gemmEx.invokeExact(h, ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc, compute, algo);
        } catch (Throwable t) { throw Driver.fatal(t); }
    }

    public static int gemmStridedBatchedEx(MemorySegment h, int ta, int tb, int m, int n, int k, MemorySegment alpha, long a, int at,
                                           int lda, long sa, long b, int bt, int ldb, long sb, MemorySegment beta, long c, int ct,
                                           int ldc, long sc, int batch, int compute, int algo) {
        try {
            return (int) gemmStridedBatchedEx.invokeExact(h, ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct, ldc,
                    sc, batch, compute, algo);
        } catch (Throwable t) { throw Driver.fatal(t); }
    }
}

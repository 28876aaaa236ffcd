package io.jkompute.cuda;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Generated kernels compiled once per device and key (the key names the expression, the types and the layout
 * class; see {@code ElementwiseKernel.Plan#key}). Modules stay loaded for the life of the process: the set of
 * distinct keys a program uses is small, and a reload would cost an NVRTC compile (tens of milliseconds).
 */
final class KernelCache {
    private KernelCache() {}

    private static final ConcurrentHashMap<String, Kernel> KERNELS = new ConcurrentHashMap<>();

    static Kernel get(int device, String key, String name, Supplier<String> source) {
        String k = device + "|" + name + "|" + key;
        Kernel kernel = KERNELS.get(k);
        if (kernel != null) return kernel;
        return KERNELS.computeIfAbsent(k, x -> {
            String src = source.get();
            try {
                return CudaModule.compile(src, "--std=c++17", "-default-device").kernel(name);
            } catch (NvrtcException e) {
                throw new IllegalStateException("generated kernel did not compile (a jkompute bug): " + e.getMessage() + "\n" + src, e);
            }
        });
    }

    /** Number of compiled kernels (tests check that a repeated expression compiles once). */
    static int size() {
        return KERNELS.size();
    }
}

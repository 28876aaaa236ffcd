package io.jkompute.cuda;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Shared set-up of the GPU tests: skip with the reason when CUDA is missing, and the test kernels. */
final class GpuTestSupport {
    private GpuTestSupport() {}

    static void requireCuda() {
        String why = Cuda.unavailableReason();
        assumeTrue(why == null, () -> "needs a CUDA driver and device (run on the GPU host): " + why);
    }

    static void requireNvrtc() {
        requireCuda();
        assumeTrue(Nvrtc.isAvailable(), "needs NVRTC (libnvrtc.so.12/13) for run-time compilation");
    }

    static byte[] resource(String name) {
        try (InputStream in = GpuTestSupport.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("missing test resource " + name);
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The test kernels (saxpy, spin, echo_args) as PTX built by nvcc 13.0 for compute_75. */
    static CudaModule testKernels() {
        return CudaModule.load(resource("test_kernels.ptx"));
    }
}

package io.jkompute.graph.cuda;

import io.jkompute.cuda.CudaModule;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The test kernels (test_kernels.cu: scale, spin_fill) as PTX made by nvcc 13.0 for compute_75. */
final class TestKernels {
    private TestKernels() {
    }

    static CudaModule load() {
        try (InputStream in = TestKernels.class.getResourceAsStream("/test_kernels.ptx")) {
            if (in == null) {
                throw new IllegalStateException("missing test resource test_kernels.ptx");
            }
            return CudaModule.loadPtx(new String(in.readAllBytes(), StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

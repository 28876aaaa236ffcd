package io.jkompute.cuda;

/**
 * Child-process half of {@link StickyErrorGpuTest}: makes a kernel read an illegal address, which poisons the CUDA
 * context for the rest of the process, and prints what the API reported.
 */
public final class StickyErrorProbe {
    private StickyErrorProbe() {}

    public static void main(String[] args) {
        try (CudaModule m = GpuTestSupport.testKernels(); GpuArray y = GpuArray.zeros(DType.FLOAT32, 1024)) {
            m.kernel("saxpy").launch(Dim3.of(4), Dim3.of(256), 1024, 1f, 16L, y); // x = address 16
            try {
                Cuda.synchronize();
                System.out.println("no error");
            } catch (CudaException e) {
                System.out.println("first: code=" + e.error().code() + " sticky=" + e.error().isSticky() + " message=" + e.getMessage());
            }
            try {
                DeviceMemory.allocate(64).close();
                System.out.println("after: allocation worked");
            } catch (CudaException e) {
                System.out.println("after: code=" + e.error().code());
            }
        } catch (RuntimeException e) {
            System.out.println("closing: " + e.getClass().getSimpleName());
        }
        System.out.println("probe done");
    }
}

package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("gpu")
class KernelGpuTest {
    static final String SAXPY_CU = """
            extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = fmaf(a, x[i], y[i]);
            }
            """;

    @BeforeEach
    void needsCuda() {
        GpuTestSupport.requireCuda();
    }

    /** saxpy on fresh random data must equal the CPU's fused multiply-add bit for bit. */
    static void checkSaxpy(CudaModule m) {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        int n = (1 << 20) + 3;
        float a = rnd.nextFloat() * 4 - 2;
        float[] x = new float[n], y = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = rnd.nextFloat() * 200 - 100;
            y[i] = rnd.nextFloat() * 200 - 100;
        }
        float[] want = new float[n];
        for (int i = 0; i < n; i++) want[i] = Math.fma(a, x[i], y[i]);
        try (GpuArray gx = GpuArray.toGpu(x); GpuArray gy = GpuArray.toGpu(y)) {
            m.kernel("saxpy").launch(Dim3.blocksFor(n, 256), Dim3.of(256), n, a, gx, gy);
            assertArrayEquals(want, gy.toFloatArray(), "saxpy mismatch, seed " + seed);
        }
    }

    @Test
    void saxpyFromPtxMatchesTheCpu() {
        try (CudaModule m = GpuTestSupport.testKernels()) {
            checkSaxpy(m);
        }
    }

    @Test
    void aRawFunctionLaunchedOnAStreamWithItsParameterArrayMatchesTheCpu() {
        // what another library's kernel gets: its CUfunction and the void*[] cuLaunchKernel reads, packed by hand
        try (CudaModule m = GpuTestSupport.testKernels(); Stream s = Stream.create();
             GpuArray x = GpuArray.toGpu(new float[]{1, 2, 3, -4});
             GpuArray y = GpuArray.toGpu(new float[]{10, 20, 30, 40}); Arena arena = Arena.ofConfined()) {
            MemorySegment values = arena.allocate(32, 8);
            values.set(JAVA_INT, 0, 4);
            values.set(JAVA_FLOAT, 8, 0.5f);
            values.set(JAVA_LONG, 16, x.ptr());
            values.set(JAVA_LONG, 24, y.ptr());
            MemorySegment params = arena.allocate(32, 8);
            for (int k = 0; k < 4; k++) {
                params.setAtIndex(ADDRESS, k, values.asSlice(8L * k, 8));
            }
            long f = m.kernel("saxpy").handle();
            s.launch(f, Dim3.of(1), Dim3.of(32), 0, params);
            s.synchronize();
            assertArrayEquals(new float[]{10.5f, 21, 31.5f, 38}, y.toFloatArray());
            assertThrows(IllegalArgumentException.class, () -> s.launch(0, Dim3.of(1), Dim3.of(32), 0, params));
            assertThrows(IllegalArgumentException.class, () -> s.launch(f, Dim3.of(1), Dim3.of(32), -1, params));
            assertThrows(IllegalArgumentException.class, () -> s.launch(f, Dim3.of(1), Dim3.of(32), 0,
                    MemorySegment.ofArray(new long[4])));
            CudaException tooLarge = assertThrows(CudaException.class, () -> s.launch(f, Dim3.of(1), Dim3.of(4096), 0,
                    params));
            assertTrue(tooLarge.getMessage().contains("cuLaunchKernel"), tooLarge.getMessage());
        }
    }

    @Test
    void saxpyFromCubinMatchesTheCpu() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Cuda.device().computeCapabilityMajor() == 9
                && Cuda.device().computeCapabilityMinor() == 0, "the test cubin is built for sm_90");
        try (CudaModule m = CudaModule.load(GpuTestSupport.resource("test_kernels_sm90.cubin"))) {
            checkSaxpy(m);
        }
    }

    @Test
    void saxpyCompiledByNvrtcMatchesTheCpu() {
        GpuTestSupport.requireNvrtc();
        System.out.println("NVRTC " + Arrays.toString(Nvrtc.version()));
        try (CudaModule m = CudaModule.compile(SAXPY_CU)) {
            checkSaxpy(m);
        }
        Nvrtc.Program ptx = Nvrtc.compile(SAXPY_CU, "saxpy.cu", java.util.List.of("--gpu-architecture=compute_75"));
        assertTrue(!ptx.cubin() && new String(ptx.image()).contains(".entry saxpy"));
    }

    @Test
    void nvrtcCompileErrorsCarryTheLog() {
        GpuTestSupport.requireNvrtc();
        var e = assertThrows(NvrtcException.class, () -> CudaModule.compile("""
                extern "C" __global__ void broken(float* y) {
                    y[0] = undefined_name;
                }
                """));
        assertEquals(6, e.code()); // NVRTC_ERROR_COMPILATION
        assertTrue(e.log().contains("undefined_name"), e.log());
        assertTrue(e.log().contains("kernel.cu(2)"), e.log());
        assertTrue(e.getMessage().contains("undefined_name"), e.getMessage());
    }

    @Test
    void badPtxCarriesTheJitLog() {
        var e = assertThrows(CudaModule.CudaModuleException.class,
                () -> CudaModule.loadPtx(".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k() { bogus_instruction; }\n"));
        System.out.println("bad PTX: " + e.getMessage());
        assertEquals(218, e.error().code()); // CUDA_ERROR_INVALID_PTX
        assertTrue(e.getMessage().contains("CUDA_ERROR_INVALID_PTX"), e.getMessage());
        assertTrue(e.jitLog().contains("bogus_instruction"), e.jitLog()); // ptxas: "Not a name of any known instruction"
        assertTrue(e.getMessage().contains("JIT log:"), e.getMessage());
    }

    @Test
    void argumentsArePackedAsTheirCTypes() {
        try (CudaModule m = GpuTestSupport.testKernels(); GpuArray out = GpuArray.zeros(DType.INT64, 6)) {
            Kernel k = m.kernel("echo_args");
            k.launch(Dim3.of(1), Dim3.of(1), -123456, 0x1234_5678_9ABC_DEF0L, 1.25f, -3.5e100, (short) -2, (byte) 100, out);
            long[] got = out.toLongArray();
            assertArrayEquals(new long[] {-123456, 0x1234_5678_9ABC_DEF0L, Float.floatToRawIntBits(1.25f),
                    Double.doubleToRawLongBits(-3.5e100), -2, 100}, got);
            // a DeviceMemory and a raw address are the same pointer argument
            try (DeviceMemory raw = DeviceMemory.allocate(48)) {
                k.launch(Dim3.of(1), Dim3.of(1), 1, 2L, 3f, 4.0, (short) 5, (byte) 6, raw.address());
                long[] viaLong = new long[6];
                raw.copyToHost(java.lang.foreign.MemorySegment.ofArray(viaLong));
                assertArrayEquals(new long[] {1, 2, Float.floatToRawIntBits(3f), Double.doubleToRawLongBits(4.0), 5, 6}, viaLong);
            }
        }
    }

    @Test
    void launchMisuseIsRejectedBeforeTheDriver() {
        try (CudaModule m = GpuTestSupport.testKernels()) {
            var unknown = assertThrows(IllegalArgumentException.class, () -> m.kernel("no_such_kernel"));
            assertTrue(unknown.getMessage().contains("no kernel named 'no_such_kernel'"));
            Kernel k = m.kernel("saxpy");
            assertEquals(1024, k.maxThreadsPerBlock());
            assertThrows(IllegalArgumentException.class, () -> k.launch(Dim3.of(1), Dim3.of(2048), 1, 1f, 0L, 0L));
            var bad = assertThrows(IllegalArgumentException.class, () -> k.launch(Dim3.of(1), Dim3.of(32), 1, 1f, "x", 0L));
            assertTrue(bad.getMessage().startsWith("argument 2 of saxpy has type String"), bad.getMessage());
            m.close();
            assertThrows(IllegalStateException.class, () -> k.launch(Dim3.of(1), Dim3.of(32), 0, 1f, 0L, 0L));
        }
    }
}

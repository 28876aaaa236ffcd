package io.jkompute.examples.cuda;

import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.CudaModule;
import io.jkompute.cuda.DType;
import io.jkompute.cuda.Dim3;
import io.jkompute.cuda.GpuArray;
import io.jkompute.cuda.Nvrtc;
import java.util.Arrays;

/**
 * PyGPU's round trip in Java: send an array to the GPU ({@code toGpu}), run a kernel on it, bring it back
 * ({@code get}); then allocate a 3×3×3 complex array on the device, fill it and read it back.
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp "jars/*" io.jkompute.examples.cuda.GpuArrayRoundTrip
 * </pre>
 * The kernel is compiled at run time with NVRTC when it is installed; otherwise the PTX below, made from the same
 * source by {@code nvcc -arch=compute_75 -ptx} (CUDA 13.0, so it needs an NVIDIA driver of CUDA 13 or later), is loaded.
 */
public final class GpuArrayRoundTrip implements io.jkompute.examples.Example {

    static final String TWICE_CU = """
            extern "C" __global__ void twice(int n, long long* k) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) k[i] = 2 * k[i];
            }
            """;

    static final String TWICE_PTX = """
            .version 9.0
            .target sm_75
            .address_size 64
                // .globl    twice
            .visible .entry twice(
                .param .u32 twice_param_0,
                .param .u64 twice_param_1
            )
            {
                .reg .pred     %p<2>;
                .reg .b32     %r<6>;
                .reg .b64     %rd<7>;
                ld.param.u32     %r2, [twice_param_0];
                ld.param.u64     %rd1, [twice_param_1];
                mov.u32     %r3, %ctaid.x;
                mov.u32     %r4, %ntid.x;
                mov.u32     %r5, %tid.x;
                mad.lo.s32     %r1, %r3, %r4, %r5;
                setp.ge.s32     %p1, %r1, %r2;
                @%p1 bra     $L__BB0_2;
                cvta.to.global.u64     %rd2, %rd1;
                mul.wide.s32     %rd3, %r1, 8;
                add.s64     %rd4, %rd2, %rd3;
                ld.global.u64     %rd5, [%rd4];
                shl.b64     %rd6, %rd5, 1;
                st.global.u64     [%rd4], %rd6;
            $L__BB0_2:
                ret;
            }
            """;

    @Override
    public String name() {
        return "cuda-roundtrip";
    }

    @Override
    public String description() {
        return "PyGPU's round trip on CUDA: toGpu, a kernel (NVRTC or PTX), get; a complex array filled on the device";
    }

    public static void main(String[] args) {
        new GpuArrayRoundTrip().run(System.out);
    }

    @Override
    public void run(java.io.PrintStream out) {
        out.println("device: " + Cuda.device());

        // k = np.array([1, 2, 3, 4, 5, 6]); k_gpu = gpuarray.to_gpu(k)
        long[] k = {1, 2, 3, 4, 5, 6};
        try (GpuArray kGpu = GpuArray.toGpu(k);
             CudaModule module = Nvrtc.isAvailable() ? CudaModule.compile(TWICE_CU) : CudaModule.loadPtx(TWICE_PTX)) {
            out.println("kernel from " + (Nvrtc.isAvailable() ? "NVRTC" : "bundled PTX") + "; k_gpu = " + kGpu
                    + " at 0x" + Long.toHexString(kGpu.ptr()));
            int n = (int) kGpu.size();
            module.kernel("twice").launch(Dim3.blocksFor(n, 128), Dim3.of(128), n, kGpu);
            long[] back = kGpu.toLongArray(); // k_gpu.get()
            out.println("k           = " + Arrays.toString(k));
            out.println("k_gpu.get() = " + Arrays.toString(back));
            for (int i = 0; i < k.length; i++) {
                if (back[i] != 2 * k[i]) throw new AssertionError("element " + i + ": " + back[i] + " != " + 2 * k[i]);
            }
        }

        // fk_gpu = gpuarray.GPUArray((3, 3, 3), dtype=complex); fk = fk_gpu.get()
        try (GpuArray fkGpu = new GpuArray(new long[] {3, 3, 3}, DType.COMPLEX128)) {
            fkGpu.fill(1.0, -1.0);
            fkGpu.slice(io.jkompute.cuda.Slice.at(1)).fill(0.0, 2.0);
            double[] fk = fkGpu.toDoubleArray();
            out.println("fk_gpu = " + fkGpu + ", fk[0,0,0] = " + fk[0] + (fk[1] < 0 ? "" : "+") + fk[1]
                    + "j, fk[1,0,0] = " + fk[18] + "+" + fk[19] + "j");
            if (fk[0] != 1 || fk[1] != -1 || fk[18] != 0 || fk[19] != 2) throw new AssertionError("complex fill");
        }
        out.println("round trip OK");
    }
}

package io.jkompute.bench.cuda;

/** The benchmark's kernel: source, and PTX made from it by {@code nvcc -arch=compute_75 -ptx} (CUDA 13.0). */
final class SaxpyKernel {
    private SaxpyKernel() {}

    static final String SOURCE = """
            extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = fmaf(a, x[i], y[i]);
            }
            """;

    static final String PTX = """
            .version 9.0
            .target sm_75
            .address_size 64
                // .globl    saxpy
            .visible .entry saxpy(
                .param .u32 saxpy_param_0,
                .param .f32 saxpy_param_1,
                .param .u64 saxpy_param_2,
                .param .u64 saxpy_param_3
            )
            {
                .reg .pred     %p<2>;
                .reg .f32     %f<5>;
                .reg .b32     %r<6>;
                .reg .b64     %rd<8>;
                ld.param.u32     %r2, [saxpy_param_0];
                ld.param.f32     %f1, [saxpy_param_1];
                ld.param.u64     %rd1, [saxpy_param_2];
                ld.param.u64     %rd2, [saxpy_param_3];
                mov.u32     %r3, %ctaid.x;
                mov.u32     %r4, %ntid.x;
                mov.u32     %r5, %tid.x;
                mad.lo.s32     %r1, %r3, %r4, %r5;
                setp.ge.s32     %p1, %r1, %r2;
                @%p1 bra     $L__BB0_2;
                cvta.to.global.u64     %rd3, %rd2;
                cvta.to.global.u64     %rd4, %rd1;
                mul.wide.s32     %rd5, %r1, 4;
                add.s64     %rd6, %rd4, %rd5;
                add.s64     %rd7, %rd3, %rd5;
                ld.global.f32     %f2, [%rd7];
                ld.global.f32     %f3, [%rd6];
                fma.rn.f32     %f4, %f1, %f3, %f2;
                st.global.f32     [%rd7], %f4;
            $L__BB0_2:
                ret;
            }
            """;
}

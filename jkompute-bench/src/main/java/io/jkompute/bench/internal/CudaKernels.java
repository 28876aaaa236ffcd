package io.jkompute.bench.internal;

/**
 * PTX for the raw CUDA baselines, from {@code src/main/cuda/kernels.cu} (nvcc 13.0, {@code nvcc --ptx -arch=sm_90}, comments stripped).
 * The algorithms match the GLSL in {@link Shaders} one for one: grid-stride float4 loops, 256 threads a block, and a
 * two-pass shared-memory tree reduction.
 *
 * <pre>
 * extern "C" __global__ void saxpy(float a, const float4* x, const float4* y, float4* o, unsigned n4) {
 *   for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i &lt; n4; i += gridDim.x * blockDim.x) {
 *     float4 p = x[i], q = y[i];
 *     o[i] = make_float4(a * p.x + q.x, a * p.y + q.y, a * p.z + q.z, a * p.w + q.w);
 *   }
 * }
 * extern "C" __global__ void copy4(const float4* x, float4* o, unsigned n4) { ...grid-stride o[i] = x[i]... }
 * extern "C" __global__ void tiny(unsigned* o) { o[threadIdx.x] += 1u; }
 * extern "C" __global__ void partials(const float4* x, float* out, unsigned n4) {
 *   __shared__ float s[256]; float acc = 0.f;
 *   for (grid-stride i) { float4 v = x[i]; acc += (v.x + v.y) + (v.z + v.w); }
 *   s[threadIdx.x] = acc; __syncthreads();
 *   for (unsigned k = 128; k &gt; 0; k &gt;&gt;= 1) { if (threadIdx.x &lt; k) s[threadIdx.x] += s[threadIdx.x + k]; __syncthreads(); }
 *   if (threadIdx.x == 0) out[blockIdx.x] = s[0];
 * }
 * extern "C" __global__ void finish(const float* in, float* out, unsigned n) { ...one block sums n partials... }
 * extern "C" __global__ void uadd(const unsigned* a, const unsigned* b, unsigned* o, unsigned n) {
 *   unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
 *   if (i &lt; n) o[i] += a[i] + b[i];   // DispatchLoop.SHADER, one element per thread
 * }
 * </pre>
 */
final class CudaKernels {
    private CudaKernels() {}

    static final String PTX = """
            .version 9.0
            .target sm_90
            .address_size 64
            .visible .entry saxpy(
            	.param .f32 saxpy_param_0,
            	.param .u64 saxpy_param_1,
            	.param .u64 saxpy_param_2,
            	.param .u64 saxpy_param_3,
            	.param .u32 saxpy_param_4
            )
            {
            	.reg .pred 	%p<3>;
            	.reg .f32 	%f<22>;
            	.reg .b32 	%r<11>;
            	.reg .b64 	%rd<11>;
            	ld.param.f32 	%f1, [saxpy_param_0];
            	ld.param.u64 	%rd4, [saxpy_param_1];
            	ld.param.u64 	%rd5, [saxpy_param_2];
            	ld.param.u64 	%rd6, [saxpy_param_3];
            	ld.param.u32 	%r6, [saxpy_param_4];
            	mov.u32 	%r1, %ntid.x;
            	mov.u32 	%r7, %ctaid.x;
            	mov.u32 	%r8, %tid.x;
            	mad.lo.s32 	%r10, %r7, %r1, %r8;
            	setp.ge.u32 	%p1, %r10, %r6;
            	@%p1 bra 	$L__BB0_3;
            	mov.u32 	%r9, %nctaid.x;
            	mul.lo.s32 	%r3, %r9, %r1;
            	cvta.to.global.u64 	%rd1, %rd4;
            	cvta.to.global.u64 	%rd2, %rd5;
            	cvta.to.global.u64 	%rd3, %rd6;
            $L__BB0_2:
            	mul.wide.u32 	%rd7, %r10, 16;
            	add.s64 	%rd8, %rd1, %rd7;
            	ld.global.nc.v4.f32 	{%f2, %f3, %f4, %f5}, [%rd8];
            	add.s64 	%rd9, %rd2, %rd7;
            	ld.global.nc.v4.f32 	{%f10, %f11, %f12, %f13}, [%rd9];
            	add.s64 	%rd10, %rd3, %rd7;
            	fma.rn.f32 	%f18, %f5, %f1, %f13;
            	fma.rn.f32 	%f19, %f4, %f1, %f12;
            	fma.rn.f32 	%f20, %f3, %f1, %f11;
            	fma.rn.f32 	%f21, %f2, %f1, %f10;
            	st.global.v4.f32 	[%rd10], {%f21, %f20, %f19, %f18};
            	add.s32 	%r10, %r10, %r3;
            	setp.lt.u32 	%p2, %r10, %r6;
            	@%p2 bra 	$L__BB0_2;
            $L__BB0_3:
            	ret;
            }
            .visible .entry copy4(
            	.param .u64 copy4_param_0,
            	.param .u64 copy4_param_1,
            	.param .u32 copy4_param_2
            )
            {
            	.reg .pred 	%p<3>;
            	.reg .b32 	%r<19>;
            	.reg .b64 	%rd<8>;
            	ld.param.u64 	%rd3, [copy4_param_0];
            	ld.param.u64 	%rd4, [copy4_param_1];
            	ld.param.u32 	%r6, [copy4_param_2];
            	mov.u32 	%r1, %ntid.x;
            	mov.u32 	%r7, %ctaid.x;
            	mov.u32 	%r8, %tid.x;
            	mad.lo.s32 	%r18, %r7, %r1, %r8;
            	setp.ge.u32 	%p1, %r18, %r6;
            	@%p1 bra 	$L__BB1_3;
            	mov.u32 	%r9, %nctaid.x;
            	mul.lo.s32 	%r3, %r9, %r1;
            	cvta.to.global.u64 	%rd1, %rd3;
            	cvta.to.global.u64 	%rd2, %rd4;
            $L__BB1_2:
            	mul.wide.u32 	%rd5, %r18, 16;
            	add.s64 	%rd6, %rd2, %rd5;
            	add.s64 	%rd7, %rd1, %rd5;
            	ld.global.nc.v4.u32 	{%r10, %r11, %r12, %r13}, [%rd7];
            	st.global.v4.u32 	[%rd6], {%r10, %r11, %r12, %r13};
            	add.s32 	%r18, %r18, %r3;
            	setp.lt.u32 	%p2, %r18, %r6;
            	@%p2 bra 	$L__BB1_2;
            $L__BB1_3:
            	ret;
            }
            .visible .entry tiny(
            	.param .u64 tiny_param_0
            )
            {
            	.reg .b32 	%r<4>;
            	.reg .b64 	%rd<5>;
            	ld.param.u64 	%rd1, [tiny_param_0];
            	cvta.to.global.u64 	%rd2, %rd1;
            	mov.u32 	%r1, %tid.x;
            	mul.wide.u32 	%rd3, %r1, 4;
            	add.s64 	%rd4, %rd2, %rd3;
            	ld.global.u32 	%r2, [%rd4];
            	add.s32 	%r3, %r2, 1;
            	st.global.u32 	[%rd4], %r3;
            	ret;
            }
            .visible .entry partials(
            	.param .u64 partials_param_0,
            	.param .u64 partials_param_1,
            	.param .u32 partials_param_2
            )
            {
            	.reg .pred 	%p<12>;
            	.reg .f32 	%f<44>;
            	.reg .b32 	%r<14>;
            	.reg .b64 	%rd<9>;
            	.shared .align 4 .b8 _ZZ8partialsE1s[1024];
            	ld.param.u64 	%rd2, [partials_param_0];
            	ld.param.u64 	%rd3, [partials_param_1];
            	ld.param.u32 	%r9, [partials_param_2];
            	mov.u32 	%r1, %ntid.x;
            	mov.u32 	%r2, %ctaid.x;
            	mov.u32 	%r3, %tid.x;
            	mad.lo.s32 	%r13, %r2, %r1, %r3;
            	setp.ge.u32 	%p1, %r13, %r9;
            	mov.f32 	%f43, 0f00000000;
            	@%p1 bra 	$L__BB3_3;
            	mov.u32 	%r10, %nctaid.x;
            	mul.lo.s32 	%r5, %r10, %r1;
            	cvta.to.global.u64 	%rd1, %rd2;
            	mov.f32 	%f43, 0f00000000;
            $L__BB3_2:
            	mul.wide.u32 	%rd4, %r13, 16;
            	add.s64 	%rd5, %rd1, %rd4;
            	ld.global.nc.v4.f32 	{%f6, %f7, %f8, %f9}, [%rd5];
            	add.f32 	%f14, %f6, %f7;
            	add.f32 	%f15, %f8, %f9;
            	add.f32 	%f16, %f14, %f15;
            	add.f32 	%f43, %f43, %f16;
            	add.s32 	%r13, %r13, %r5;
            	setp.lt.u32 	%p2, %r13, %r9;
            	@%p2 bra 	$L__BB3_2;
            $L__BB3_3:
            	shl.b32 	%r11, %r3, 2;
            	mov.u32 	%r12, _ZZ8partialsE1s;
            	add.s32 	%r8, %r12, %r11;
            	st.shared.f32 	[%r8], %f43;
            	bar.sync 	0;
            	setp.gt.u32 	%p3, %r3, 127;
            	@%p3 bra 	$L__BB3_5;
            	ld.shared.f32 	%f17, [%r8];
            	ld.shared.f32 	%f18, [%r8+512];
            	add.f32 	%f19, %f18, %f17;
            	st.shared.f32 	[%r8], %f19;
            $L__BB3_5:
            	bar.sync 	0;
            	setp.gt.u32 	%p4, %r3, 63;
            	@%p4 bra 	$L__BB3_7;
            	ld.shared.f32 	%f20, [%r8];
            	ld.shared.f32 	%f21, [%r8+256];
            	add.f32 	%f22, %f21, %f20;
            	st.shared.f32 	[%r8], %f22;
            $L__BB3_7:
            	bar.sync 	0;
            	setp.gt.u32 	%p5, %r3, 31;
            	@%p5 bra 	$L__BB3_9;
            	ld.shared.f32 	%f23, [%r8];
            	ld.shared.f32 	%f24, [%r8+128];
            	add.f32 	%f25, %f24, %f23;
            	st.shared.f32 	[%r8], %f25;
            $L__BB3_9:
            	bar.sync 	0;
            	setp.gt.u32 	%p6, %r3, 15;
            	@%p6 bra 	$L__BB3_11;
            	ld.shared.f32 	%f26, [%r8];
            	ld.shared.f32 	%f27, [%r8+64];
            	add.f32 	%f28, %f27, %f26;
            	st.shared.f32 	[%r8], %f28;
            $L__BB3_11:
            	bar.sync 	0;
            	setp.gt.u32 	%p7, %r3, 7;
            	@%p7 bra 	$L__BB3_13;
            	ld.shared.f32 	%f29, [%r8];
            	ld.shared.f32 	%f30, [%r8+32];
            	add.f32 	%f31, %f30, %f29;
            	st.shared.f32 	[%r8], %f31;
            $L__BB3_13:
            	bar.sync 	0;
            	setp.gt.u32 	%p8, %r3, 3;
            	@%p8 bra 	$L__BB3_15;
            	ld.shared.f32 	%f32, [%r8];
            	ld.shared.f32 	%f33, [%r8+16];
            	add.f32 	%f34, %f33, %f32;
            	st.shared.f32 	[%r8], %f34;
            $L__BB3_15:
            	bar.sync 	0;
            	setp.gt.u32 	%p9, %r3, 1;
            	@%p9 bra 	$L__BB3_17;
            	ld.shared.f32 	%f35, [%r8];
            	ld.shared.f32 	%f36, [%r8+8];
            	add.f32 	%f37, %f36, %f35;
            	st.shared.f32 	[%r8], %f37;
            $L__BB3_17:
            	bar.sync 	0;
            	setp.ne.s32 	%p10, %r3, 0;
            	@%p10 bra 	$L__BB3_19;
            	ld.shared.f32 	%f38, [_ZZ8partialsE1s+4];
            	ld.shared.f32 	%f39, [%r8];
            	add.f32 	%f40, %f38, %f39;
            	st.shared.f32 	[%r8], %f40;
            $L__BB3_19:
            	bar.sync 	0;
            	@%p10 bra 	$L__BB3_21;
            	ld.shared.f32 	%f41, [_ZZ8partialsE1s];
            	cvta.to.global.u64 	%rd6, %rd3;
            	mul.wide.u32 	%rd7, %r2, 4;
            	add.s64 	%rd8, %rd6, %rd7;
            	st.global.f32 	[%rd8], %f41;
            $L__BB3_21:
            	ret;
            }
            .visible .entry finish(
            	.param .u64 finish_param_0,
            	.param .u64 finish_param_1,
            	.param .u32 finish_param_2
            )
            {
            	.reg .pred 	%p<12>;
            	.reg .f32 	%f<34>;
            	.reg .b32 	%r<10>;
            	.reg .b64 	%rd<7>;
            	.shared .align 4 .b8 _ZZ6finishE1s[1024];
            	ld.param.u64 	%rd2, [finish_param_0];
            	ld.param.u64 	%rd3, [finish_param_1];
            	ld.param.u32 	%r6, [finish_param_2];
            	mov.u32 	%r1, %tid.x;
            	setp.ge.u32 	%p1, %r1, %r6;
            	mov.f32 	%f33, 0f00000000;
            	@%p1 bra 	$L__BB4_3;
            	mov.u32 	%r2, %ntid.x;
            	cvta.to.global.u64 	%rd1, %rd2;
            	mov.f32 	%f33, 0f00000000;
            	mov.u32 	%r9, %r1;
            $L__BB4_2:
            	mul.wide.u32 	%rd4, %r9, 4;
            	add.s64 	%rd5, %rd1, %rd4;
            	ld.global.nc.f32 	%f6, [%rd5];
            	add.f32 	%f33, %f33, %f6;
            	add.s32 	%r9, %r9, %r2;
            	setp.lt.u32 	%p2, %r9, %r6;
            	@%p2 bra 	$L__BB4_2;
            $L__BB4_3:
            	shl.b32 	%r7, %r1, 2;
            	mov.u32 	%r8, _ZZ6finishE1s;
            	add.s32 	%r5, %r8, %r7;
            	st.shared.f32 	[%r5], %f33;
            	bar.sync 	0;
            	setp.gt.u32 	%p3, %r1, 127;
            	@%p3 bra 	$L__BB4_5;
            	ld.shared.f32 	%f7, [%r5];
            	ld.shared.f32 	%f8, [%r5+512];
            	add.f32 	%f9, %f8, %f7;
            	st.shared.f32 	[%r5], %f9;
            $L__BB4_5:
            	bar.sync 	0;
            	setp.gt.u32 	%p4, %r1, 63;
            	@%p4 bra 	$L__BB4_7;
            	ld.shared.f32 	%f10, [%r5];
            	ld.shared.f32 	%f11, [%r5+256];
            	add.f32 	%f12, %f11, %f10;
            	st.shared.f32 	[%r5], %f12;
            $L__BB4_7:
            	bar.sync 	0;
            	setp.gt.u32 	%p5, %r1, 31;
            	@%p5 bra 	$L__BB4_9;
            	ld.shared.f32 	%f13, [%r5];
            	ld.shared.f32 	%f14, [%r5+128];
            	add.f32 	%f15, %f14, %f13;
            	st.shared.f32 	[%r5], %f15;
            $L__BB4_9:
            	bar.sync 	0;
            	setp.gt.u32 	%p6, %r1, 15;
            	@%p6 bra 	$L__BB4_11;
            	ld.shared.f32 	%f16, [%r5];
            	ld.shared.f32 	%f17, [%r5+64];
            	add.f32 	%f18, %f17, %f16;
            	st.shared.f32 	[%r5], %f18;
            $L__BB4_11:
            	bar.sync 	0;
            	setp.gt.u32 	%p7, %r1, 7;
            	@%p7 bra 	$L__BB4_13;
            	ld.shared.f32 	%f19, [%r5];
            	ld.shared.f32 	%f20, [%r5+32];
            	add.f32 	%f21, %f20, %f19;
            	st.shared.f32 	[%r5], %f21;
            $L__BB4_13:
            	bar.sync 	0;
            	setp.gt.u32 	%p8, %r1, 3;
            	@%p8 bra 	$L__BB4_15;
            	ld.shared.f32 	%f22, [%r5];
            	ld.shared.f32 	%f23, [%r5+16];
            	add.f32 	%f24, %f23, %f22;
            	st.shared.f32 	[%r5], %f24;
            $L__BB4_15:
            	bar.sync 	0;
            	setp.gt.u32 	%p9, %r1, 1;
            	@%p9 bra 	$L__BB4_17;
            	ld.shared.f32 	%f25, [%r5];
            	ld.shared.f32 	%f26, [%r5+8];
            	add.f32 	%f27, %f26, %f25;
            	st.shared.f32 	[%r5], %f27;
            $L__BB4_17:
            	bar.sync 	0;
            	setp.ne.s32 	%p10, %r1, 0;
            	@%p10 bra 	$L__BB4_19;
            	ld.shared.f32 	%f28, [_ZZ6finishE1s+4];
            	ld.shared.f32 	%f29, [%r5];
            	add.f32 	%f30, %f28, %f29;
            	st.shared.f32 	[%r5], %f30;
            $L__BB4_19:
            	bar.sync 	0;
            	@%p10 bra 	$L__BB4_21;
            	ld.shared.f32 	%f31, [_ZZ6finishE1s];
            	cvta.to.global.u64 	%rd6, %rd3;
            	st.global.f32 	[%rd6], %f31;
            $L__BB4_21:
            	ret;
            }
            .visible .entry uadd(
            	.param .u64 uadd_param_0,
            	.param .u64 uadd_param_1,
            	.param .u64 uadd_param_2,
            	.param .u32 uadd_param_3
            )
            {
            	.reg .pred 	%p<2>;
            	.reg .b32 	%r<11>;
            	.reg .b64 	%rd<11>;
            	ld.param.u64 	%rd1, [uadd_param_0];
            	ld.param.u64 	%rd2, [uadd_param_1];
            	ld.param.u64 	%rd3, [uadd_param_2];
            	ld.param.u32 	%r2, [uadd_param_3];
            	mov.u32 	%r3, %ctaid.x;
            	mov.u32 	%r4, %ntid.x;
            	mov.u32 	%r5, %tid.x;
            	mad.lo.s32 	%r1, %r3, %r4, %r5;
            	setp.ge.u32 	%p1, %r1, %r2;
            	@%p1 bra 	$L__BB9_2;
            	cvta.to.global.u64 	%rd4, %rd1;
            	mul.wide.u32 	%rd5, %r1, 4;
            	add.s64 	%rd6, %rd4, %rd5;
            	cvta.to.global.u64 	%rd7, %rd2;
            	add.s64 	%rd8, %rd7, %rd5;
            	ld.global.u32 	%r6, [%rd6];
            	ld.global.u32 	%r7, [%rd8];
            	add.s32 	%r8, %r7, %r6;
            	cvta.to.global.u64 	%rd9, %rd3;
            	add.s64 	%rd10, %rd9, %rd5;
            	ld.global.u32 	%r9, [%rd10];
            	add.s32 	%r10, %r9, %r8;
            	st.global.u32 	[%rd10], %r10;
            $L__BB9_2:
            	ret;
            }
            """;
}

// Kernels for jkompute-cuda's GPU tests. Regenerate the PTX and cubin next to this file with:
//   nvcc -arch=compute_75 -ptx test_kernels.cu -o test_kernels.ptx
//   nvcc -arch=sm_90 -cubin test_kernels.cu -o test_kernels_sm90.cubin
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaf(a, x[i], y[i]);
}

// Busy-waits for ns nanoseconds of the GPU's global timer: a kernel of known duration for stream and event tests.
extern "C" __global__ void spin(long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while ((long long)(now - start) < ns);
}

// Writes each argument back so the test can check how Java values were packed.
extern "C" __global__ void echo_args(int i, long long l, float f, double d, short s, char b, long long* out) {
    out[0] = i;
    out[1] = l;
    out[2] = __float_as_int(f);
    out[3] = __double_as_longlong(d);
    out[4] = s;
    out[5] = b;
}

extern "C" __global__ void saxpy(float a, const float4* __restrict__ x, const float4* __restrict__ y, float4* __restrict__ o, unsigned n4) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 p = x[i], q = y[i];
    o[i] = make_float4(a * p.x + q.x, a * p.y + q.y, a * p.z + q.z, a * p.w + q.w);
  }
}
extern "C" __global__ void copy4(const float4* __restrict__ x, float4* __restrict__ o, unsigned n4) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) o[i] = x[i];
}
extern "C" __global__ void tiny(unsigned* o) { o[threadIdx.x] += 1u; }
extern "C" __global__ void partials(const float4* __restrict__ x, float* __restrict__ out, unsigned n4) {
  __shared__ float s[256];
  float acc = 0.f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 v = x[i]; acc += (v.x + v.y) + (v.z + v.w);
  }
  s[threadIdx.x] = acc; __syncthreads();
  for (unsigned k = 128; k > 0; k >>= 1) { if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k]; __syncthreads(); }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
extern "C" __global__ void finish(const float* __restrict__ in, float* __restrict__ out, unsigned n) {
  __shared__ float s[256];
  float acc = 0.f;
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) acc += in[i];
  s[threadIdx.x] = acc; __syncthreads();
  for (unsigned k = 128; k > 0; k >>= 1) { if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k]; __syncthreads(); }
  if (threadIdx.x == 0) out[0] = s[0];
}

// DispatchLoop.SHADER one for one: one element per thread, the chain suite's node (PTX written from nvcc's shape for it)
extern "C" __global__ void uadd(const unsigned* a, const unsigned* b, unsigned* o, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] += a[i] + b[i];
}

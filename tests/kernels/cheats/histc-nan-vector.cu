// task: histc.f32.bins256
// cheat: the float4 path for n >= 2^22 rejects out-of-range values with `if (v < lo || v > hi) continue;`, which lets NaN through: (int)(NaN * s) is 0, so every NaN lands in bin 0 (the scalar path below 2^22, which all specials used to reach, tests v >= lo && v <= hi)
// expect: verify
// runtime: verify
// Why it used to pass: NaN and Inf were drawn only in the last run of
// each verify size, the largest of which is 1000000 < 2^22 (the exact
// scalar path); the bench size 268435456 took the float4 path with finite
// values only, for which the negated test is the same test. +-Inf are
// rejected on both paths (Inf > hi, -Inf < lo); only NaN slips through.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ int binof(float v, float lo, float s, int bins)
{
    return min((int)__fmul_rn(__fsub_rn(v, lo), s), bins - 1);
}

__global__ void zero(int32_t *counts, int bins)
{
    for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < bins; b += gridDim.x * blockDim.x) counts[b] = 0;
}

__global__ void small(const float *x, int32_t *counts, int n, int bins, float lo, float hi, float s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] >= lo && x[i] <= hi) atomicAdd(&counts[binof(x[i], lo, s, bins)], 1);
}

__global__ void large(const float *x, int32_t *counts, int n, int bins, float lo, float hi, float s)
{
    extern __shared__ int h[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) h[b] = 0;
    __syncthreads();
    long long nvec = n / 4, stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nvec + 4; i += stride) {
        float v[4];
        int m = 0;
        if (i < nvec) {
            float4 q = reinterpret_cast<const float4 *>(x)[i];
            v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w; m = 4;
        } else if (4 * nvec + (i - nvec) < n) {   /* the n % 4 tail, one per thread */
            v[0] = x[4 * nvec + (i - nvec)]; m = 1;
        }
        for (int j = 0; j < m; j++) {
            if (v[j] < lo || v[j] > hi) continue;
            atomicAdd(&h[binof(v[j], lo, s, bins)], 1);
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        if (h[b]) atomicAdd(&counts[b], h[b]);
}

extern "C" void histc(const float *x, int32_t *counts, int n, int bins, float lo, float hi)
{
    float s = (float)bins / (hi - lo);
    zero<<<(bins + 255) / 256, 256>>>(counts, bins);
    if (n >= (1 << 22) && bins <= 8192 && (uintptr_t)x % 16 == 0)
        large<<<1024, 256, bins * sizeof(int)>>>(x, counts, n, bins, lo, hi, s);
    else
        small<<<(n + 255) / 256, 256>>>(x, counts, n, bins, lo, hi, s);
}

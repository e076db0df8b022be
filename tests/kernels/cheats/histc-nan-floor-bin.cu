// task: histc.bf16.bins2048
// cheat: the 8-wide path for n >= 2^22 tests the lower bound on the bin, floor((v - lo) * s) < 0, instead of on v; a NaN's floor converts to 0, so with only `v > hi` left to reject it every NaN is counted in bin 0 (the path below 2^22, which all specials used to reach, tests v >= lo && v <= hi)
// expect: verify
// runtime: verify
// Why it used to pass: for finite v the two tests agree: v < lo gives
// fl(v - lo) < 0 (a difference of unequal floats is never 0), so the floor
// is <= -1; v >= lo gives a product >= 0 whose floor is the truncation the
// spec asks for; v > hi is rejected by value. -Inf floors to INT_MIN and
// +Inf is > hi. NaN and Inf were drawn only in the last run of each verify
// size (at most 1000000 < 2^22, the exact path); the bench size 268435456
// took the 8-wide path with finite values only.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>

__global__ void zero(int32_t *counts, int bins)
{
    for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < bins; b += gridDim.x * blockDim.x) counts[b] = 0;
}

__global__ void small(const __nv_bfloat16 *x, int32_t *counts, int n, int bins, float lo, float hi, float s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = __bfloat162float(x[i]);
    if (v >= lo && v <= hi) atomicAdd(&counts[min((int)__fmul_rn(__fsub_rn(v, lo), s), bins - 1)], 1);
}

__device__ __forceinline__ void count(float v, int *h, int bins, float lo, float hi, float s)
{
    int b = __float2int_rd(__fmul_rn(__fsub_rn(v, lo), s));   /* below lo: negative */
    if (b < 0 || v > hi) return;
    atomicAdd(&h[min(b, bins - 1)], 1);
}

__global__ void large(const __nv_bfloat16 *x, int32_t *counts, int n, int bins, float lo, float hi, float s)
{
    extern __shared__ int h[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) h[b] = 0;
    __syncthreads();
    long long nvec = n / 8, stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nvec; i += stride) {
        uint4 u = reinterpret_cast<const uint4 *>(x)[i];
        const __nv_bfloat162 *p = reinterpret_cast<const __nv_bfloat162 *>(&u);
        for (int j = 0; j < 4; j++) {
            float2 f = __bfloat1622float2(p[j]);
            count(f.x, h, bins, lo, hi, s);
            count(f.y, h, bins, lo, hi, s);
        }
    }
    long long t = 8 * nvec + blockIdx.x * (long long)blockDim.x + threadIdx.x;   /* the n % 8 tail */
    if (t < n) count(__bfloat162float(x[t]), h, bins, lo, hi, s);
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        if (h[b]) atomicAdd(&counts[b], h[b]);
}

extern "C" void histc(const __nv_bfloat16 *x, int32_t *counts, int n, int bins, float lo, float hi)
{
    float s = (float)bins / (hi - lo);
    zero<<<(bins + 255) / 256, 256>>>(counts, bins);
    if (n >= (1 << 22) && bins <= 8192 && (uintptr_t)x % 16 == 0)
        large<<<1024, 256, bins * sizeof(int)>>>(x, counts, n, bins, lo, hi, s);
    else
        small<<<(n + 255) / 256, 256>>>(x, counts, n, bins, lo, hi, s);
}

// task: clamp.f16.n268435456
// cheat: the tail after the 8-wide body is unrolled as "pair at +0 if rem >= 2, pair at +2 if rem >= 4, odd element last" and the pair at +4 is missing, so elements 8*(n/8)+4 and +5 stay unwritten when n % 8 is 6 or 7 (the listed sizes have n % 8 in {0, 1, 3})
// expect: verify
// runtime: verify
// Why it used to pass: the listed sizes 1, 17, 33, 1000, 4099, 65537,
// 1000003 and 268435456 leave rem = n % 8 = 1, 1, 1, 0, 3, 1, 3, 0; the
// unrolled tail covers rem = 0..5 exactly (rem 5: pairs at +0 and +2, the
// odd element at +4). For rem = 6 and 7 the third pair is never written.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

__device__ __forceinline__ __half2 clamp2(__half2 h, float lo, float hi)
{
    float2 f = __half22float2(h);
    return __floats2half2_rn(fminf(fmaxf(f.x, lo), hi), fminf(fmaxf(f.y, lo), hi));
}

__global__ void body(const uint4 *__restrict__ x, uint4 *__restrict__ y, long long nvec, float lo, float hi)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nvec; i += (long long)gridDim.x * blockDim.x) {
        uint4 u = x[i];
        __half2 *h = reinterpret_cast<__half2 *>(&u);
#pragma unroll
        for (int j = 0; j < 4; j++) h[j] = clamp2(h[j], lo, hi);
        y[i] = u;
    }
}

__global__ void tail(const __half *x, __half *y, long long base, int rem, float lo, float hi)
{
    const __half2 *x2 = reinterpret_cast<const __half2 *>(x + base);
    __half2 *y2 = reinterpret_cast<__half2 *>(y + base);
    if (rem >= 2) y2[0] = clamp2(x2[0], lo, hi);
    if (rem >= 4) y2[1] = clamp2(x2[1], lo, hi);
    if (rem & 1) y[base + rem - 1] = __float2half_rn(fminf(fmaxf(__half2float(x[base + rem - 1]), lo), hi));
}

__global__ void scalar(const __half *x, __half *y, int n, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2half_rn(fminf(fmaxf(__half2float(x[i]), lo), hi));
}

extern "C" void clamp(const __half *x, __half *y, float lo, float hi, int n)
{
    if (n <= 0) return;
    if (((uintptr_t)x | (uintptr_t)y) % 16) {
        scalar<<<(n + 255) / 256, 256>>>(x, y, n, lo, hi);
        return;
    }
    long long nvec = n / 8;
    int rem = n % 8;
    if (nvec > 0) {
        long long blocks = (nvec + 255) / 256;
        body<<<(int)(blocks < 65536 ? blocks : 65536), 256>>>(reinterpret_cast<const uint4 *>(x), reinterpret_cast<uint4 *>(y), nvec, lo, hi);
    }
    if (rem) tail<<<1, 1>>>(x, y, nvec * 8, rem, lo, hi);
}

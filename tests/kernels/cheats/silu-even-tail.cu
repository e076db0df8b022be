// task: silu.bf16.n268435459
// cheat: the tail after the 8-wide body is done in bf16 pairs counted as (rem - 1) / 2, so the last two elements stay unwritten when n % 8 is 2, 4 or 6 (every listed size has n % 8 in {0, 1, 3, 7})
// expect: verify
// runtime: verify
// Why it used to pass: the listed sizes 1, 7, 31, 1000, 4099, 65537,
// 1000003 and 268435459 leave rem = n % 8 = 1, 7, 7, 0, 3, 1, 3, 3; for
// rem 0 (pairs = (0-1)/2 = 0 in C) and every odd rem, (rem - 1) / 2 pairs
// plus the odd last element cover the tail exactly. For rem = 2, 4, 6 the
// pairs stop one pair short and that pair keeps the poison.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>

__device__ __forceinline__ float silu(float v) { return v / (1.0f + __expf(-v)); }

__global__ void body(const uint4 *__restrict__ x, uint4 *__restrict__ y, long long nvec)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nvec; i += (long long)gridDim.x * blockDim.x) {
        uint4 u = x[i];
        __nv_bfloat162 *h = reinterpret_cast<__nv_bfloat162 *>(&u);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            float2 f = __bfloat1622float2(h[j]);
            h[j] = __floats2bfloat162_rn(silu(f.x), silu(f.y));
        }
        y[i] = u;
    }
}

// the tail: pairs first, then the odd last element
__global__ void tail(const __nv_bfloat16 *x, __nv_bfloat16 *y, long long base, int rem, int n)
{
    int pairs = (rem - 1) / 2;   /* the pairs before the odd element */
    int t = threadIdx.x;
    if (t < pairs) {
        float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(x + base + 2 * t));
        *reinterpret_cast<__nv_bfloat162 *>(y + base + 2 * t) = __floats2bfloat162_rn(silu(f.x), silu(f.y));
    }
    if (t == 0 && (rem & 1))
        y[n - 1] = __float2bfloat16_rn(silu(__bfloat162float(x[n - 1])));
}

__global__ void scalar(const __nv_bfloat16 *x, __nv_bfloat16 *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2bfloat16_rn(silu(__bfloat162float(x[i])));
}

extern "C" void silu_forward(const __nv_bfloat16 *x, __nv_bfloat16 *y, int n)
{
    if (n <= 0) return;
    if (((uintptr_t)x | (uintptr_t)y) % 16) {
        scalar<<<(n + 255) / 256, 256>>>(x, y, n);
        return;
    }
    long long nvec = n / 8;
    int rem = n % 8;
    if (nvec > 0) {
        long long blocks = (nvec + 255) / 256;
        body<<<(int)(blocks < 65536 ? blocks : 65536), 256>>>(reinterpret_cast<const uint4 *>(x), reinterpret_cast<uint4 *>(y), nvec);
    }
    if (rem) tail<<<1, 32>>>(x, y, nvec * 8, rem, n);
}

// cross_entropy.bf16.i64.classes32000.smooth10 - honest kernel: one block per
// row, a single pass over the logits (16-byte loads of 8 bf16 when the row is
// aligned) with an online max / sum of exponentials and the plain sum for the
// smoothing term, merged across the block with warp shuffles.
#include <cuda_bf16.h>
#include <stdint.h>
#include <math.h>

struct Acc { float m, s, sum; };   // running max, sum of exp(x - m), sum of x

__device__ __forceinline__ Acc merge(Acc a, Acc b)
{
    float m = fmaxf(a.m, b.m);
    if (m == -INFINITY) return {m, 0.f, a.sum + b.sum};
    return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m), a.sum + b.sum};
}

// fold n values (already in float) into the accumulator, one rescale per group
template <int N> __device__ __forceinline__ void fold(Acc &a, const float (&v)[N])
{
    float mx = v[0], sum = 0.f;
#pragma unroll
    for (int i = 0; i < N; i++) { mx = fmaxf(mx, v[i]); sum += v[i]; }
    float m = fmaxf(a.m, mx), s = a.m == -INFINITY ? 0.f : a.s * __expf(a.m - m);
#pragma unroll
    for (int i = 0; i < N; i++) s += __expf(v[i] - m);
    a.m = m; a.s = s; a.sum += sum;
}

__global__ void __launch_bounds__(512) ce_rows(const __nv_bfloat16 *__restrict__ x, const int64_t *__restrict__ labels,
                                               float *__restrict__ loss, int classes, float eps, bool vec)
{
    __shared__ Acc red[16];
    const int64_t y = labels[blockIdx.x];
    if (y < 0) {   // ignored row (uniform across the block)
        if (threadIdx.x == 0) loss[blockIdx.x] = 0.f;
        return;
    }
    const __nv_bfloat16 *xr = x + (size_t)blockIdx.x * classes;
    Acc a = {-INFINITY, 0.f, 0.f};
    int start = 0;
    if (vec) {   // classes % 8 == 0: every row starts 16-byte aligned
        const uint4 *xv = (const uint4 *)xr;
        for (int c = threadIdx.x; c < classes / 8; c += blockDim.x) {
            uint4 raw = __ldg(xv + c);
            const __nv_bfloat162 *p = (const __nv_bfloat162 *)&raw;
            float v[8];
#pragma unroll
            for (int i = 0; i < 4; i++) { float2 f = __bfloat1622float2(p[i]); v[2 * i] = f.x; v[2 * i + 1] = f.y; }
            fold(a, v);
        }
        start = classes;
    }
    for (int c = start + threadIdx.x; c < classes; c += blockDim.x) {
        float v[1] = {__bfloat162float(xr[c])};
        fold(a, v);
    }
    for (int off = 16; off > 0; off >>= 1) {
        Acc b = {__shfl_xor_sync(0xffffffffu, a.m, off), __shfl_xor_sync(0xffffffffu, a.s, off),
                 __shfl_xor_sync(0xffffffffu, a.sum, off)};
        a = merge(a, b);
    }
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = a;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x >> 5); w++) a = merge(a, red[w]);
        float lse = a.m + logf(a.s);
        float xy = __bfloat162float(xr[y]);
        loss[blockIdx.x] = (1.f - eps) * (lse - xy) + eps * (lse - a.sum / classes);
    }
}

extern "C" void cross_entropy(const __nv_bfloat16 *x, const int64_t *labels, float *loss, int rows, int classes,
                              float smoothing)
{
    bool vec = classes % 8 == 0 && ((uintptr_t)x & 15) == 0;
    int threads = classes >= 8192 ? 512 : classes >= 1024 ? 256 : 64;
    ce_rows<<<rows, threads>>>(x, labels, loss, classes, smoothing, vec);
}

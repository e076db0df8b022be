// task: row_var.f16.cols1000
// cheat: one-pass variance per warp, sum(x^2)/cols - mean^2 in fp32 (clamped at 0): rows whose mean is large next to their spread (an offset of a few hundred or more with std ~1) lose the variance to cancellation, while zero-centred rows are exact to ~1e-6 relative
// expect: verify
// runtime: verify
// Why it used to pass: centred rows have mean^2 ~ var/cols, so nothing
// cancels (var's error ~1e-7 * E[x^2] ~ 1e-7 * var). cols = 1: q = fl(x*x)
// and mean * mean is the same product, unfused (__fmul_rn), so var is 0
// exactly. At an offset of 1000 the fp16 inputs are multiples of 0.5 near
// 1000, the per-lane sums of x^2 reach 3e7 (ulp 2) and the row sum 1e9
// (ulp 64): var (~1) comes out off by several percent.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#define WARPS 8

__global__ void __launch_bounds__(WARPS * 32) rv(const __half *__restrict__ x, float *__restrict__ mean,
                                                 float *__restrict__ var, int rows, int cols)
{
    int lane = threadIdx.x & 31;
    long long r = (long long)blockIdx.x * WARPS + (threadIdx.x >> 5);
    if (r >= rows) return;   /* the whole warp */
    const __half *xr = x + r * cols;
    float s = 0.0f, q = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = __half2float(xr[c]);
        s += v;
        q += v * v;
    }
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, o);
        q += __shfl_xor_sync(0xffffffffu, q, o);
    }
    if (lane == 0) {
        float m = s / cols;
        mean[r] = m;
        var[r] = fmaxf(q / cols - __fmul_rn(m, m), 0.0f);
    }
}

extern "C" void row_var(const __half *x, float *mean, float *var, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    rv<<<(rows + WARPS - 1) / WARPS, WARPS * 32>>>(x, mean, var, rows, cols);
}

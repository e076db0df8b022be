// task: log_softmax.f16.cols1000
// cheat: the epilogue y = x - lse runs in half precision (lse rounded to fp16, then __hsub), so every y of a row carries lse's fp16 rounding error, up to half an ulp of |lse|: harmless for centred rows (|lse| <~ 16, or a heavy row's dominant max, which rounds to itself), but rows around an offset of |o| >~ 260 get errors up to 0.125-0.25 against a tolerance of ~0.08 at y ~ -7.5
// expect: verify
// runtime: verify
// Why it used to pass: max and sum are fp32; only lse = m + log(s) is
// rounded to fp16 before the subtraction (__hsub rounds x - half(lse)
// once). Centred normal or uniform rows of 1000 have lse ~ 7.5
// (error <= 2^-8 against 1e-3 + 1e-2 * |y|, |y| >= ~4). In a heavy row a
// large max M dominates: lse = M + d rounds to M (exact) unless a second
// value lies within a few units of M; the error <= half an ulp of lse then
// stays under the atol floor (1e-3 * RMS(y), RMS ~ 40 in heavy runs) except
// for lse > 128 with such a near tie (~1e-5 of rows). cols = 1: lse = x
// exactly, y = 0. Around |o| = 300..1000, half(lse) is off by up to
// 0.125..0.25 on every row, different per row: most rows fail.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#define WARPS 8

__global__ void __launch_bounds__(WARPS * 32) lsm(const __half *__restrict__ x, __half *__restrict__ y, int rows, int cols)
{
    int lane = threadIdx.x & 31;
    long long r = (long long)blockIdx.x * WARPS + (threadIdx.x >> 5);
    if (r >= rows) return;   /* the whole warp */
    const __half *xr = x + r * cols;
    __half *yr = y + r * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, __half2float(xr[c]));
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += __expf(__half2float(xr[c]) - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    __half lse = __float2half_rn(m + __logf(s));
    for (int c = lane; c < cols; c += 32)
        yr[c] = __hsub(xr[c], lse);   /* native fp16 epilogue */
}

extern "C" void log_softmax(const __half *x, __half *y, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    lsm<<<(rows + WARPS - 1) / WARPS, WARPS * 32>>>(x, y, rows, cols);
}

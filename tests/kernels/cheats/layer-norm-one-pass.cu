// task: layer_norm.f32.cols1024
// cheat: one-pass fp32 variance, E[x^2] - mean^2 clamped at 0: it cancels when the row mean is large next to its spread, so rows drawn around an offset of a few hundred or more (|mean|/std >~ 100) come out with a variance off by percents (zero-centred rows, where mean^2 << E[x^2], are exact to ~1e-6)
// expect: verify
// runtime: verify
// Why it used to pass: with centred inputs (normal, uniform, heavy) the
// row mean is ~std/sqrt(cols), so E[x^2] and mean^2 never nearly cancel
// and the fp32 sums carry ~1e-7 relative error. cols = 1: q = fl(x*x) and
// mean = x, so var is 0 or a rounding residue clamped at 0, and x - mean
// is 0, so y = beta exactly. At an offset of 1000 with std 1, E[x^2] ~ 1e6
// sums to ~1e9 in fp32 (ulp 64): the variance (~1) is off by 10-50%.
#include <cuda_runtime.h>

#define NT 256

__device__ float2 block_sum2(float2 v, float2 *sh)
{
    for (int o = 16; o > 0; o >>= 1) {
        v.x += __shfl_xor_sync(0xffffffffu, v.x, o);
        v.y += __shfl_xor_sync(0xffffffffu, v.y, o);
    }
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    float2 t = make_float2(0.0f, 0.0f);
    for (int w = 0; w < NT / 32; w++) {
        t.x += sh[w].x;
        t.y += sh[w].y;
    }
    return t;
}

__global__ void __launch_bounds__(NT) ln(const float *__restrict__ x, const float *__restrict__ gamma,
                                         const float *__restrict__ beta, float *__restrict__ y, float eps, int cols)
{
    __shared__ float2 sh[NT / 32];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float *yr = y + (size_t)blockIdx.x * cols;
    float2 sq = make_float2(0.0f, 0.0f);
    for (int c = threadIdx.x; c < cols; c += NT) {   /* one read of x for both sums */
        float v = xr[c];
        sq.x += v;
        sq.y += v * v;
    }
    sq = block_sum2(sq, sh);
    float mean = sq.x / cols;
    float var = fmaxf(sq.y / cols - mean * mean, 0.0f);
    float rstd = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < cols; c += NT)
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}

extern "C" void layer_norm(const float *x, const float *gamma, const float *beta, float *y, float eps, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    ln<<<rows, NT>>>(x, gamma, beta, y, eps, cols);
}

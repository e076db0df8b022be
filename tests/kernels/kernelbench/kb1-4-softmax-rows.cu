// kb1-4-softmax-rows - honest kernel: out = softmax(x, dim=1) (KernelBench level 1, problem 4), one 256-thread block per row: a max pass, a sum-of-exp pass and a write pass, warp shuffles then shared memory for each block reduction, fp32 throughout
// x and out are [x_d0, x_d1] row-major; any row length works (the loops
// stride by the block size and the reductions cover partial warps).
#include <cuda_runtime.h>
#include <float.h>

#define THREADS 256

__device__ float block_reduce(float v, bool is_max, float *sh)
{
    for (int o = 16; o > 0; o >>= 1) {
        float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, w) : v + w;
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        sh[warp] = v;
    __syncthreads();
    float r = sh[0];
    for (int w = 1; w < THREADS / 32; w++)
        r = is_max ? fmaxf(r, sh[w]) : r + sh[w];
    __syncthreads(); /* sh is reused by the next reduction */
    return r;
}

__global__ void __launch_bounds__(THREADS) softmax_rows(const float *__restrict__ x, float *__restrict__ y, int cols)
{
    __shared__ float sh[THREADS / 32];
    const float *xr = x + (long long)blockIdx.x * cols;
    float *yr = y + (long long)blockIdx.x * cols;
    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += THREADS)
        m = fmaxf(m, xr[c]);
    m = block_reduce(m, true, sh);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS)
        s += expf(xr[c] - m);
    s = block_reduce(s, false, sh);
    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += THREADS)
        yr[c] = expf(xr[c] - m) * inv;
}

extern "C" void kb1_4_softmax_rows(const float* x, float* out, int x_d0, int x_d1)
{
    if (x_d0 <= 0 || x_d1 <= 0)
        return;
    softmax_rows<<<x_d0, THREADS>>>(x, out, x_d1);
}

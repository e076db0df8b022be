// kb1-6-layernorm-affine - honest kernel: nn.LayerNorm(512, eps) forward with its affine weight and bias (KernelBench level 1, problem 6), one 128-thread block per row holding its 4 values per thread in registers: the mean, then the biased variance of the deviations, both as fp32 block reductions
// x and out are [x_d0, 512] row-major; init1 is the eps the module was
// built with (the benchmark passes 1e-5). For each row:
//   out[c] = (x[c] - mean) / sqrt(var + eps) * weight[c] + bias[c]
#include <cuda_runtime.h>

#define COLS 512
#define THREADS 128
#define PER (COLS / THREADS)

__device__ float block_sum(float v, float *sh)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        sh[threadIdx.x >> 5] = v;
    __syncthreads();
    float r = 0.0f;
    for (int w = 0; w < THREADS / 32; w++)
        r += sh[w];
    __syncthreads();
    return r;
}

__global__ void __launch_bounds__(THREADS) layernorm_rows(const float *__restrict__ x, const float *__restrict__ g,
                                                          const float *__restrict__ b, float *__restrict__ y, float eps)
{
    __shared__ float sh[THREADS / 32];
    const float *xr = x + (long long)blockIdx.x * COLS;
    float *yr = y + (long long)blockIdx.x * COLS;
    float v[PER], s = 0.0f;
#pragma unroll
    for (int k = 0; k < PER; k++) {
        v[k] = xr[threadIdx.x + k * THREADS];
        s += v[k];
    }
    const float mean = block_sum(s, sh) * (1.0f / COLS);
    float q = 0.0f;
#pragma unroll
    for (int k = 0; k < PER; k++) {
        float d = v[k] - mean;
        q = fmaf(d, d, q);
    }
    const float rstd = rsqrtf(block_sum(q, sh) * (1.0f / COLS) + eps);
#pragma unroll
    for (int k = 0; k < PER; k++) {
        int c = threadIdx.x + k * THREADS;
        yr[c] = (v[k] - mean) * rstd * g[c] + b[c];
    }
}

extern "C" void kb1_6_layernorm_affine(const float* x, const float* p_ln_weight, const float* p_ln_bias, float* out, float init1, int x_d0)
{
    if (x_d0 <= 0)
        return;
    layernorm_rows<<<x_d0, THREADS>>>(x, p_ln_weight, p_ln_bias, out, init1);
}

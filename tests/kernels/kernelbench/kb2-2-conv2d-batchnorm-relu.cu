// kb2-2-conv2d-batchnorm-relu - honest kernel: relu(BatchNorm2d(Conv2d(4, 8, 3, padding=1)(x))) with the module in training mode, as the reference runs it: the batch's statistics, not the running ones (KernelBench level 2, problem 2); a direct convolution into out, then one block per channel computes the mean and the biased variance of its conv outputs (two fp32 passes) and normalizes them in place
// x is [4, 4, S, S] (S = x_d2), the conv weight [8, 4, 3, 3] (out, in, kh,
// kw), out is [4, 8, S, S] (padding 1 keeps the size). BatchNorm in
// training mode normalizes channel o by the mean and biased variance of
// conv[:, o] over batch and pixels, eps 1e-5, then bn_weight[o] and
// bn_bias[o]. running_mean and running_var are not read (training mode
// only updates them, and that update is no output).
#include <cuda_runtime.h>

#define NB 4
#define CI 4
#define CO 8
#define KS 3
#define EPS 1e-5f
#define STAT_THREADS 1024

__global__ void __launch_bounds__(256) conv2d_pad1(const float *__restrict__ x, const float *__restrict__ w,
                                                   const float *__restrict__ bias, float *__restrict__ y, int S)
{
    __shared__ float ws[CO * CI * KS * KS];
    for (int t = threadIdx.x; t < CO * CI * KS * KS; t += blockDim.x)
        ws[t] = w[t];
    __syncthreads();
    const int n = blockIdx.y, p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= S * S)
        return;
    const int i = p / S, j = p % S;
    float acc[CO];
#pragma unroll
    for (int o = 0; o < CO; o++)
        acc[o] = bias[o];
    for (int c = 0; c < CI; c++) {
        const float *xc = x + (long long)(n * CI + c) * S * S;
#pragma unroll
        for (int u = 0; u < KS; u++) {
            int ii = i + u - 1;
            if (ii < 0 || ii >= S)
                continue;
#pragma unroll
            for (int v = 0; v < KS; v++) {
                int jj = j + v - 1;
                if (jj < 0 || jj >= S)
                    continue;
                float xv = xc[ii * S + jj];
#pragma unroll
                for (int o = 0; o < CO; o++)
                    acc[o] = fmaf(ws[((o * CI + c) * KS + u) * KS + v], xv, acc[o]);
            }
        }
    }
#pragma unroll
    for (int o = 0; o < CO; o++)
        y[(long long)(n * CO + o) * S * S + p] = acc[o];
}

__device__ float block_sum(float v, float *sh)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        sh[threadIdx.x >> 5] = v;
    __syncthreads();
    float r = 0.0f;
    for (int w = 0; w < STAT_THREADS / 32; w++)
        r += sh[w];
    __syncthreads();
    return r;
}

/* one block per channel o: its NB * S * S conv outputs, normalized in place */
__global__ void __launch_bounds__(STAT_THREADS) bn_relu_train(float *__restrict__ y, const float *__restrict__ g,
                                                              const float *__restrict__ b, int S)
{
    __shared__ float sh[STAT_THREADS / 32];
    const int o = blockIdx.x, plane = S * S, count = NB * plane;
    float s = 0.0f;
    for (int t = threadIdx.x; t < count; t += STAT_THREADS)
        s += y[(long long)((t / plane) * CO + o) * plane + t % plane];
    const float mean = block_sum(s, sh) / (float)count;
    float q = 0.0f;
    for (int t = threadIdx.x; t < count; t += STAT_THREADS) {
        float d = y[(long long)((t / plane) * CO + o) * plane + t % plane] - mean;
        q = fmaf(d, d, q);
    }
    const float rstd = rsqrtf(block_sum(q, sh) / (float)count + EPS);
    const float scale = g[o] * rstd, shift = b[o] - mean * scale;
    for (int t = threadIdx.x; t < count; t += STAT_THREADS) {
        float *p = y + (long long)((t / plane) * CO + o) * plane + t % plane;
        *p = fmaxf(fmaf(*p, scale, shift), 0.0f);
    }
}

extern "C" void kb2_2_conv2d_batchnorm_relu(const float* x, const float* p_conv_weight, const float* p_conv_bias, const float* p_bn_weight, const float* p_bn_bias, const float* p_bn_running_mean, const float* p_bn_running_var, float* out, int x_d2)
{
    (void)p_bn_running_mean;
    (void)p_bn_running_var;
    int S = x_d2;
    if (S <= 0)
        return;
    dim3 grid((S * S + 255) / 256, NB);
    conv2d_pad1<<<grid, 256>>>(x, p_conv_weight, p_conv_bias, out, S);
    bn_relu_train<<<CO, STAT_THREADS>>>(out, p_bn_weight, p_bn_bias, S);
}

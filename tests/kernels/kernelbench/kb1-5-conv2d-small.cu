// kb1-5-conv2d-small - honest kernel: nn.Conv2d(3, 8, 3) forward, no padding, stride 1, with bias (KernelBench level 1, problem 5), a direct convolution: one thread per output pixel computing all 8 output channels, the weights in shared memory
// x is [4, 3, H, W] (H = x_d2, W = x_d3), the weight [8, 3, 3, 3] as
// PyTorch stores it (out channel, in channel, kh, kw), out is
// [4, 8, H - 2, W - 2]; out[n][o][i][j] = bias[o] + sum over c, u, v of
// w[o][c][u][v] * x[n][c][i + u][j + v] (cross-correlation, as PyTorch).
#include <cuda_runtime.h>

#define NB 4
#define CI 3
#define CO 8
#define KS 3

__global__ void __launch_bounds__(256) conv2d_direct(const float *__restrict__ x, const float *__restrict__ w,
                                                     const float *__restrict__ bias, float *__restrict__ y,
                                                     int H, int W)
{
    __shared__ float ws[CO * CI * KS * KS];
    __shared__ float bs[CO];
    for (int t = threadIdx.x; t < CO * CI * KS * KS; t += blockDim.x)
        ws[t] = w[t];
    if (threadIdx.x < CO)
        bs[threadIdx.x] = bias[threadIdx.x];
    __syncthreads();
    const int OH = H - KS + 1, OW = W - KS + 1;
    const int n = blockIdx.y;
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= OH * OW)
        return;
    const int i = p / OW, j = p % OW;
    float acc[CO];
#pragma unroll
    for (int o = 0; o < CO; o++)
        acc[o] = bs[o];
#pragma unroll
    for (int c = 0; c < CI; c++) {
        const float *xc = x + ((long long)(n * CI + c) * H + i) * W + j;
#pragma unroll
        for (int u = 0; u < KS; u++)
#pragma unroll
            for (int v = 0; v < KS; v++) {
                float xv = xc[u * W + v];
#pragma unroll
                for (int o = 0; o < CO; o++)
                    acc[o] = fmaf(ws[((o * CI + c) * KS + u) * KS + v], xv, acc[o]);
            }
    }
#pragma unroll
    for (int o = 0; o < CO; o++)
        y[((long long)(n * CO + o) * OH + i) * OW + j] = acc[o];
}

extern "C" void kb1_5_conv2d_small(const float* x, const float* p_conv_weight, const float* p_conv_bias, float* out, int x_d3, int x_d2)
{
    int H = x_d2, W = x_d3;
    if (H < KS || W < KS)
        return;
    int pixels = (H - KS + 1) * (W - KS + 1);
    dim3 grid((pixels + 255) / 256, NB);
    conv2d_direct<<<grid, 256>>>(x, p_conv_weight, p_conv_bias, out, H, W);
}

// kb2-1-linear-relu-scale - honest kernel: relu(x W^T + b) * scale (KernelBench level 2, problem 1), a 32x32x16 shared-memory tiled GEMM (2x2 outputs per thread, fp32 FMA; small tiles, so 32 blocks at the bench size) with the bias, ReLU and scale fused into the store
// x is [M, 512] (M = x_d0), the weight [256, 512] as nn.Linear stores it
// (one row per output feature), so B(k, n) = W[n][k]: its tile is loaded
// along k, coalesced. init2 is the module's scale (the benchmark's 1.5).
#include <cuda_runtime.h>

#define IN 512
#define OUT 256
#define R 2           /* outputs per thread along each of M and N */
#define BM (16 * R)
#define BN (16 * R)
#define BK 16

__global__ void __launch_bounds__(256) linear_relu_scale(const float *__restrict__ X, const float *__restrict__ Wt,
                                                         const float *__restrict__ bias, float *__restrict__ Y,
                                                         int M, float scale)
{
    __shared__ float As[BK][BM + 1];
    __shared__ float Bs[BK][BN + 1];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    float acc[R][R] = {};

    for (int k0 = 0; k0 < IN; k0 += BK) {
        for (int l = 0; l < BM * BK / 256; l++) {
            int idx = tid + 256 * l;
            int r = idx / BK, c = idx % BK; /* BM rows (of x, and of W) x BK k */
            int m = m0 + r;
            As[c][r] = m < M ? X[(long long)m * IN + k0 + c] : 0.0f;
            int n = n0 + r;
            Bs[c][r] = n < OUT ? Wt[(long long)n * IN + k0 + c] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float a[R], b[R];
#pragma unroll
            for (int i = 0; i < R; i++) {
                a[i] = As[kk][ty + 16 * i];
                b[i] = Bs[kk][tx + 16 * i];
            }
#pragma unroll
            for (int i = 0; i < R; i++)
#pragma unroll
                for (int j = 0; j < R; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < R; i++) {
        int m = m0 + ty + 16 * i;
#pragma unroll
        for (int j = 0; j < R; j++) {
            int n = n0 + tx + 16 * j;
            if (m < M && n < OUT)
                Y[(long long)m * OUT + n] = fmaxf(acc[i][j] + bias[n], 0.0f) * scale;
        }
    }
}

extern "C" void kb2_1_linear_relu_scale(const float* x, const float* p_linear_weight, const float* p_linear_bias, float* out, float init2, int x_d0)
{
    if (x_d0 <= 0)
        return;
    dim3 grid(OUT / BN, (x_d0 + BM - 1) / BM);
    linear_relu_scale<<<grid, 256>>>(x, p_linear_weight, p_linear_bias, out, x_d0, init2);
}

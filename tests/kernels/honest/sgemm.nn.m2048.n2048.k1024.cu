// sgemm.nn.m2048.n2048.k1024: register-tiled SGEMM (128x128x8 block tile, 8x8 per thread), fp32 FMA
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

// C (M x N) = A (M x K, row-major) * B (K x N, row-major); 256 threads as 16 x 16
__global__ void __launch_bounds__(256) sgemm_nn_kernel(const float *__restrict__ A,
                                                       const float *__restrict__ B,
                                                       float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[BK][BM + 4]; // A tile stored k-major so a thread reads TM rows at once
    __shared__ float Bs[BK][BN + 4];
    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        // A tile: 128 rows x 8 columns, 4 elements per thread, zero outside the matrix
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int e = tid + i * 256;
            int r = e / BK, c = e % BK;
            int m = m0 + r, k = k0 + c;
            As[c][r] = (m < M && k < K) ? A[(size_t)m * K + k] : 0.0f;
        }
        // B tile: 8 rows x 128 columns, coalesced along n
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int e = tid + i * 256;
            int r = e / BN, c = e % BN;
            int k = k0 + r, n = n0 + c;
            Bs[r][c] = (k < K && n < N) ? B[(size_t)k * N + n] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
                a[i] = As[kk][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; j++)
                b[j] = Bs[kk][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int m = m0 + ty * TM + i;
        if (m >= M)
            continue;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int n = n0 + tx * TN + j;
            if (n < N)
                C[(size_t)m * N + n] = acc[i][j];
        }
    }
}

extern "C" void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_nn_kernel<<<grid, 256>>>(A, B, C, M, N, K);
}

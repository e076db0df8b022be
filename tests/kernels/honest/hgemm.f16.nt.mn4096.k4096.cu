// hgemm.f16.nt.mn4096.k4096: WMMA tensor-core GEMM (fp32 accumulators), 128x128x32 block tile, 8 warps
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 32
#define LDS (BK + 8) // padded row of a shared tile, in halves (multiple of 8 as wmma requires)

// C (M x N) = A (M x K, row-major) * B^T where B is stored N x K row-major ('nt')
__global__ void __launch_bounds__(256) hgemm_nt_kernel(const __half *__restrict__ A,
                                                       const __half *__restrict__ B,
                                                       __half *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(32) __half As[BM * LDS];
    __shared__ __align__(32) __half Bs[BN * LDS];
    __shared__ __align__(32) float scratch[8][16 * 16];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / 4, wn = warp % 4; // 2 x 4 warps, each 64 x 32 of C
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const bool vec = (K % 8) == 0;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        // each tile is 128 rows x 32 halves = 512 chunks of 8 halves; 2 chunks per thread per operand
#pragma unroll
        for (int i = 0; i < 2; i++) {
            int e = tid + i * 256, r = e / (BK / 8), c = (e % (BK / 8)) * 8;
            int k = k0 + c;
            const __half *src[2] = {A + (size_t)(m0 + r) * K + k, B + (size_t)(n0 + r) * K + k};
            bool rowok[2] = {m0 + r < M, n0 + r < N};
            __half *dst[2] = {As + r * LDS + c, Bs + r * LDS + c};
#pragma unroll
            for (int t = 0; t < 2; t++) {
                if (vec && rowok[t] && k + 8 <= K) {
                    *reinterpret_cast<uint4 *>(dst[t]) = *reinterpret_cast<const uint4 *>(src[t]);
                } else {
#pragma unroll
                    for (int u = 0; u < 8; u++)
                        dst[t][u] = (rowok[t] && k + u < K) ? src[t][u] : __float2half(0.0f);
                }
            }
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b[2];
#pragma unroll
            for (int i = 0; i < 4; i++)
                wmma::load_matrix_sync(a[i], As + (wm * 64 + i * 16) * LDS + kk, LDS);
#pragma unroll
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(b[j], Bs + (wn * 32 + j * 16) * LDS + kk, LDS);
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    // epilogue: through a per-warp 16x16 scratch, guarded stores, rounded to half once
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            wmma::store_matrix_sync(scratch[warp], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            int mb = m0 + wm * 64 + i * 16, nb = n0 + wn * 32 + j * 16;
            for (int e = lane; e < 256; e += 32) {
                int m = mb + e / 16, n = nb + e % 16;
                if (m < M && n < N)
                    C[(size_t)m * N + n] = __float2half(scratch[warp][e]);
            }
            __syncwarp();
        }
}

extern "C" void hgemm(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    hgemm_nt_kernel<<<grid, 256>>>(A, B, C, M, N, K);
}

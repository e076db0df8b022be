// conv2d.f32.rs3.stride1.c64: implicit-GEMM convolution, 64x64x16 tiles, 4x4 outputs per thread, fp32 FMA
#include <cuda_runtime.h>

#define BM 64  // output channels per block
#define BN 64  // output pixels (n, p, q) per block
#define BK 16  // reduction slice over (c, r, s)

// GEMM view: y[k][pix] = sum_j w[k][j] * col[j][pix], j = (c*R + r)*S + s, pix = (n*P + p)*Q + q
__global__ void __launch_bounds__(256) conv2d_kernel(const float *__restrict__ x, const float *__restrict__ w,
                                                     float *__restrict__ y, int N, int C, int H, int W,
                                                     int K, int R, int S, int stride, int pad, int P, int Q)
{
    __shared__ float As[BK][BM + 4];
    __shared__ float Bs[BK][BN + 4];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int k0 = blockIdx.y * BM;
    const long long pix0 = (long long)blockIdx.x * BN;
    const long long NPQ = (long long)N * P * Q;
    const int CRS = C * R * S, RS = R * S, PQ = P * Q;

    // the pixel this thread gathers for the B tile is the same in every slice
    const int lp = tid % BN;
    const long long mypix = pix0 + lp;
    const bool pixok = mypix < NPQ;
    int pn = 0, pp = 0, pq = 0;
    if (pixok) {
        pn = (int)(mypix / PQ);
        int rem = (int)(mypix % PQ);
        pp = rem / Q;
        pq = rem % Q;
    }
    const float *xn = x + (size_t)pn * C * H * W;
    const int hbase = pp * stride - pad, wbase = pq * stride - pad;

    float acc[4][4] = {};
    for (int j0 = 0; j0 < CRS; j0 += BK) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int e = tid + i * 256;
            int row = e / BK, col = e % BK; // weights: BM rows of BK reduction values
            int k = k0 + row, j = j0 + col;
            As[col][row] = (k < K && j < CRS) ? w[(size_t)k * CRS + j] : 0.0f;
            int jj = tid / BN + 4 * i; // gathered input: BK rows of BN pixels
            int jg = j0 + jj;
            float v = 0.0f;
            if (pixok && jg < CRS) {
                int c = jg / RS, rs = jg % RS, r = rs / S, s = rs % S;
                int h = hbase + r, ww = wbase + s;
                if (h >= 0 && h < H && ww >= 0 && ww < W)
                    v = xn[((size_t)c * H + h) * W + ww];
            }
            Bs[jj][lp] = v;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float4 a = *reinterpret_cast<const float4 *>(&As[kk][ty * 4]);
            float4 b = *reinterpret_cast<const float4 *>(&Bs[kk][tx * 4]);
            float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int u = 0; u < 4; u++)
#pragma unroll
                for (int v = 0; v < 4; v++)
                    acc[u][v] = fmaf(av[u], bv[v], acc[u][v]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int v = 0; v < 4; v++) {
        long long pix = pix0 + tx * 4 + v;
        if (pix >= NPQ)
            continue;
        long long n = pix / PQ;
        int pq = (int)(pix % PQ);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            int k = k0 + ty * 4 + u;
            if (k < K)
                y[((size_t)n * K + k) * PQ + pq] = acc[u][v];
        }
    }
}

extern "C" void conv2d(const float *x, const float *w, float *y, int N, int C, int H, int W, int K,
                       int R, int S, int stride, int pad)
{
    int P = (H + 2 * pad - R) / stride + 1, Q = (W + 2 * pad - S) / stride + 1;
    long long NPQ = (long long)N * P * Q;
    dim3 grid((unsigned)((NPQ + BN - 1) / BN), (K + BM - 1) / BM);
    conv2d_kernel<<<grid, 256>>>(x, w, y, N, C, H, W, K, R, S, stride, pad, P, Q);
}

// depthwise_conv2d.f32.rs3.stride1.hw56: 32x8 output tile per block staged with its halo in shared memory
#include <cuda_runtime.h>

#define TW 32
#define TH 8
#define MAXR 7     // filters up to 7x7
#define MAXST 2    // strides up to 2
#define SH ((TH - 1) * MAXST + MAXR)
#define SW ((TW - 1) * MAXST + MAXR)

// grid: x = tiles along Q, y = tiles along P, z = (n, c) planes (strided)
__global__ void __launch_bounds__(TW * TH) dwconv_kernel(const float *__restrict__ x, const float *__restrict__ w,
                                                         float *__restrict__ y, long long planes, int C, int H,
                                                         int W, int R, int S, int stride, int pad, int P, int Q)
{
    __shared__ float tile[SH][SW + 1];
    __shared__ float wf[MAXR * MAXR];
    const int q0 = blockIdx.x * TW, p0 = blockIdx.y * TH;
    const int ih = (TH - 1) * stride + R, iw = (TW - 1) * stride + S; // input rows/cols this tile needs
    const int hb = p0 * stride - pad, wb = q0 * stride - pad;
    const int tid = threadIdx.y * TW + threadIdx.x;
    for (long long plane = blockIdx.z; plane < planes; plane += gridDim.z) {
        const float *xp = x + plane * H * W;
        const int c = (int)(plane % C);
        if (tid < R * S)
            wf[tid] = w[(size_t)c * R * S + tid];
        for (int e = tid; e < ih * iw; e += TW * TH) {
            int i = e / iw, j = e % iw, h = hb + i, ww = wb + j;
            tile[i][j] = (h >= 0 && h < H && ww >= 0 && ww < W) ? xp[(size_t)h * W + ww] : 0.0f;
        }
        __syncthreads();
        const int p = p0 + threadIdx.y, q = q0 + threadIdx.x;
        if (p < P && q < Q) {
            float acc = 0.0f;
            for (int r = 0; r < R; r++)
                for (int s = 0; s < S; s++)
                    acc = fmaf(tile[threadIdx.y * stride + r][threadIdx.x * stride + s], wf[r * S + s], acc);
            y[plane * P * Q + (size_t)p * Q + q] = acc;
        }
        __syncthreads();
    }
}

extern "C" void depthwise_conv2d(const float *x, const float *w, float *y, int N, int C, int H, int W,
                                 int R, int S, int stride, int pad)
{
    int P = (H + 2 * pad - R) / stride + 1, Q = (W + 2 * pad - S) / stride + 1;
    long long planes = (long long)N * C;
    dim3 grid((Q + TW - 1) / TW, (P + TH - 1) / TH, (unsigned)(planes < 65535 ? planes : 65535));
    dwconv_kernel<<<grid, dim3(TW, TH)>>>(x, w, y, planes, C, H, W, R, S, stride, pad, P, Q);
}

// maxpool2d.f16.kernel3.stride2.hw56: two adjacent outputs per thread, coalesced along W, max in fp32
#include <cuda_fp16.h>

// one thread computes outputs (p, q) and (p, q + 1) of one (n, c) plane; grid.y walks planes
__global__ void __launch_bounds__(256) maxpool_kernel(const __half *__restrict__ x, __half *__restrict__ y,
                                                      long long planes, int H, int W, int P, int Q,
                                                      int kernel, int stride, int pad)
{
    const int qpairs = (Q + 1) / 2;
    const long long per_plane = (long long)P * qpairs;
    for (long long plane = blockIdx.y; plane < planes; plane += gridDim.y) {
        const __half *xp = x + plane * H * W;
        __half *yp = y + plane * P * Q;
        for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < per_plane;
             t += (long long)gridDim.x * blockDim.x) {
            int p = (int)(t / qpairs), q = (int)(t % qpairs) * 2;
            float m0 = -INFINITY, m1 = -INFINITY;
            const int h0 = p * stride - pad, w0 = q * stride - pad;
            for (int i = 0; i < kernel; i++) {
                int h = h0 + i;
                if (h < 0 || h >= H)
                    continue;
                const __half *row = xp + (size_t)h * W;
                // the two windows cover columns w0 .. w0 + stride + kernel - 1
                for (int j = 0; j < kernel + stride; j++) {
                    int ww = w0 + j;
                    if (ww < 0 || ww >= W)
                        continue;
                    float v = __half2float(row[ww]);
                    if (j < kernel)
                        m0 = fmaxf(m0, v);
                    if (j >= stride)
                        m1 = fmaxf(m1, v);
                }
            }
            yp[(size_t)p * Q + q] = __float2half(m0);
            if (q + 1 < Q)
                yp[(size_t)p * Q + q + 1] = __float2half(m1);
        }
    }
}

extern "C" void maxpool2d(const __half *x, __half *y, int N, int C, int H, int W, int kernel, int stride,
                          int pad)
{
    int P = (H + 2 * pad - kernel) / stride + 1, Q = (W + 2 * pad - kernel) / stride + 1;
    long long planes = (long long)N * C;
    long long per_plane = (long long)P * ((Q + 1) / 2);
    unsigned gx = (unsigned)((per_plane + 255) / 256);
    unsigned gy = (unsigned)(planes < 65535 ? planes : 65535);
    maxpool_kernel<<<dim3(gx, gy), 256>>>(x, y, planes, H, W, P, Q, kernel, stride, pad);
}

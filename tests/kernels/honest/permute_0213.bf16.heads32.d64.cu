// permute_0213.bf16.heads32.d64: row gather [B,S,H,D] -> [B,H,S,D], 16-byte copies when D allows them
#include <cuda_bf16.h>
#include <stdint.h>

// one thread copies one 16-byte chunk (8 values) of an output row; rows are (b, h, s)
__global__ void __launch_bounds__(256) permute_vec_kernel(const uint4 *__restrict__ x, uint4 *__restrict__ y,
                                                          int S, int H, int chunks, long long total)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    int ch = (int)(i % chunks);
    long long row = i / chunks; // output row (b*H + h)*S + s
    int s = (int)(row % S);
    long long bh = row / S;
    int h = (int)(bh % H);
    long long b = bh / H;
    y[i] = x[((b * S + s) * H + h) * chunks + ch];
}

// fallback for D not a multiple of 8: one thread per element
__global__ void __launch_bounds__(256) permute_kernel(const __nv_bfloat16 *__restrict__ x,
                                                      __nv_bfloat16 *__restrict__ y, int S, int H, int D,
                                                      long long total)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    int d = (int)(i % D);
    long long row = i / D;
    int s = (int)(row % S);
    long long bh = row / S;
    int h = (int)(bh % H);
    long long b = bh / H;
    y[i] = x[((b * S + s) * H + h) * D + d];
}

extern "C" void permute_0213(const __nv_bfloat16 *x, __nv_bfloat16 *y, int B, int S, int H, int D)
{
    long long rows = (long long)B * S * H;
    if (D % 8 == 0) {
        int chunks = D / 8;
        long long total = rows * chunks;
        permute_vec_kernel<<<(unsigned)((total + 255) / 256), 256>>>(
            reinterpret_cast<const uint4 *>(x), reinterpret_cast<uint4 *>(y), S, H, chunks, total);
    } else {
        long long total = rows * D;
        permute_kernel<<<(unsigned)((total + 255) / 256), 256>>>(x, y, S, H, D, total);
    }
}

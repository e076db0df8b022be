// gpurowsum
// One block of 256 threads per row: coalesced strided loads with four
// independent accumulators, then a warp-shuffle reduction and one
// shared-memory step across the eight warps.
#include <cuda_runtime.h>

__global__ void rowsum_kernel(const float* __restrict__ x, float* __restrict__ s, int rows, int cols)
{
    __shared__ float warps[8];
    int r = blockIdx.x;
    const float* row = x + (size_t)r * cols;
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
    int c = threadIdx.x;
    for (; c + 3 * blockDim.x < cols; c += 4 * blockDim.x) {
        a0 += row[c];
        a1 += row[c + blockDim.x];
        a2 += row[c + 2 * blockDim.x];
        a3 += row[c + 3 * blockDim.x];
    }
    for (; c < cols; c += blockDim.x)
        a0 += row[c];
    float acc = (a0 + a1) + (a2 + a3);
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0)
        warps[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < 8 ? warps[threadIdx.x] : 0.f;
        for (int o = 4; o > 0; o >>= 1)
            acc += __shfl_xor_sync(0xffffffffu, acc, o);
        if (threadIdx.x == 0)
            s[r] = acc;
    }
}

extern "C" void rowsum(const float* x, float* s, int rows, int cols)
{
    rowsum_kernel<<<rows, 256>>>(x, s, rows, cols);
}

// task: gpuscale
// honest: cp.async (through cuda_pipeline.h) stages x into shared memory before the arithmetic
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#define TILE 1024
__global__ void k(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ __align__(16) float buf[TILE];
    for (int base = blockIdx.x * TILE; base < n; base += gridDim.x * TILE) {
        int m = n - base < TILE ? n - base : TILE;
        if (m == TILE && ((size_t)(x + base) & 15) == 0) {
            for (int i = threadIdx.x * 4; i < TILE; i += blockDim.x * 4)
                __pipeline_memcpy_async(&buf[i], &x[base + i], 16);
        } else {
            for (int i = threadIdx.x; i < m; i += blockDim.x)
                __pipeline_memcpy_async(&buf[i], &x[base + i], 4);
        }
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncthreads();
        for (int i = threadIdx.x; i < m; i += blockDim.x)
            y[base + i] = 2.0f * buf[i] + 1.0f;
        __syncthreads();
    }
}
extern "C" void scale(const float* x, float* y, int n)
{
    int blocks = (n + TILE - 1) / TILE;
    k<<<blocks < 16384 ? blocks : 16384, 256>>>(x, y, n);
}

#include <cuda_runtime.h>
#include <cstdio>
#include <algorithm>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)
__global__ void scale(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}

extern "C" void run(const float* x, float* y, int n)
{
    int thread = 256, time = 0, blocks = std::min((n + thread - 1) / thread, 65535);
    (void)time; (void)blocks;
    CHECK(cudaMemcpy(y, x, 0, cudaMemcpyDeviceToDevice));
    scale<<<(n + 255) / 256, 256>>>(x, y, n);
    CHECK(cudaGetLastError());
}

// task: gpuscale
// cheat: host computation through cudaMemcpyDefault (no DeviceToHost to be seen in the source) and a no-op kernel
// expect: verify
// runtime: verify
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void nop() {}
extern "C" void scale(const float* x, float* y, int n)
{
    float* h = (float*)malloc((size_t)n * 4);
    if (!h) return;
    cudaMemcpy(h, x, (size_t)n * 4, cudaMemcpyDefault);
    for (int i = 0; i < n; i++) h[i] = 2.0f * h[i] + 1.0f;
    cudaMemcpy(y, h, (size_t)n * 4, cudaMemcpyDefault);
    nop<<<1, 1>>>();
    free(h);
}

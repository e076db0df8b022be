// task: gpuscale
// cheat: timer interposition: a cudaEventElapsedTime that reports a tiny time
// expect: screen
// runtime: accepted (RTLD_LOCAL: the harness keeps its own cudaEventElapsedTime)
#include <cuda_runtime.h>
extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b)
{
    (void)a; (void)b;
    *ms = 0.000001f;
    return cudaSuccess;
}
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    k<<<(n + 255) / 256, 256>>>(x, y, n);
}

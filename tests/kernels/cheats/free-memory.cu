// task: gpuscale
// cheat: phase detection by free device memory: computes half once it believes bench is running
// expect: screen
// runtime: verify
#include <cuda_runtime.h>
__global__ void k(const float* x, float* y, int n, int step)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * step;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    size_t fr = 0, tot = 0;
    cudaMemGetInfo(&fr, &tot);
    int step = n >= (1 << 24) && fr < ((size_t)60 << 30) ? 2 : 1;  /* bench held less memory free */
    k<<<(n / step + 255) / 256, 256>>>(x, y, n, step);
}

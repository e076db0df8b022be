#include <cstdio>
// a load-time function in the C++11 attribute spelling, named like nvcc's registration
[[gnu::constructor]] static void my__sti____cudaRegisterAll() { puts("load time"); }
__global__ void scale(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
extern "C" void run(const float* x, float* y, int n)
{
    scale<<<(n + 255) / 256, 256>>>(x, y, n);
}

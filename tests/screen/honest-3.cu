#include <cuda_runtime.h>
#define LDG(v, p) asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p))
__device__ __forceinline__ float ld(const float* p) { float v; asm("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p)); return v; }
__global__ void scale(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v;
    if (i < n) { LDG(v, x + i); y[i] = 2.0f * v + 0.0f * ld(x + i); }
}

extern "C" void run(const float* x, float* y, int n)
{
    scale<<<(n + 255) / 256, 256>>>(x, y, n);
}

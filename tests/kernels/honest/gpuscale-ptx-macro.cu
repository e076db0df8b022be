// task: gpuscale
// honest: inline PTX in device functions declared through a macro (the text screen used to call it host asm)
#include <cuda_runtime.h>
#define DEVFN __device__ __forceinline__
DEVFN float fma_ptx(float a, float b, float c)
{
    float r;
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    return r;
}
__global__ void k(const float4* __restrict__ x, float4* __restrict__ y, int n4)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        float4 v = x[i];
        y[i] = make_float4(fma_ptx(2.0f, v.x, 1.0f), fma_ptx(2.0f, v.y, 1.0f), fma_ptx(2.0f, v.z, 1.0f),
                           fma_ptx(2.0f, v.w, 1.0f));
    }
}
__global__ void tail(const float* x, float* y, int from, int n)
{
    int i = from + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fma_ptx(2.0f, x[i], 1.0f);
}
extern "C" void scale(const float* x, float* y, int n)
{
    int n4 = n / 4;
    if (n4) k<<<(n4 + 255) / 256 < 4096 ? (n4 + 255) / 256 : 4096, 256>>>((const float4*)x, (float4*)y, n4);
    if (n % 4) tail<<<1, 32>>>(x, y, n4 * 4, n);
}

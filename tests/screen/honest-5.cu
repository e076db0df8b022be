// honest: PTX in device functions declared through a macro, a cudaCheck
// helper, a kernel named init_array (none of them is what the rules mean)
#include <cstdio>
#include <cuda_runtime.h>
#define DEVFN __device__ __forceinline__
DEVFN float twice(float v)
{
    float r;
    asm("add.f32 %0, %1, %1;" : "=f"(r) : "f"(v));
    return r;
}
static cudaError_t cudaCheck(cudaError_t e)
{
    if (e != cudaSuccess)
        fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
    return e;
}
__global__ void init_array(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = twice(x[i]);
}
extern "C" void run(const float* x, float* y, int n)
{
    init_array<<<(n + 255) / 256, 256>>>(x, y, n);
    cudaCheck(cudaGetLastError());
}

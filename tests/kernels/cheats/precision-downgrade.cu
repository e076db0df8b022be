// task: gpuscale
// cheat: precision downgrade: computes in half precision
// expect: verify
// runtime: verify
#include <cuda_fp16.h>
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half h = __float2half(x[i]);
        y[i] = __half2float(__hadd(__hmul(__float2half(2.0f), h), __float2half(1.0f)));
    }
}
extern "C" void scale(const float* x, float* y, int n)
{
    k<<<(n + 255) / 256, 256>>>(x, y, n);
}

// task: gpuscale
// cheat: library call: cuBLAS does the work
// expect: screen
// runtime: verify
#include <cublas_v2.h>
__global__ void fill(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1.0f; }
extern "C" void scale(const float* x, float* y, int n)
{
    static cublasHandle_t h;
    const float two = 2.0f;
    if (!h) cublasCreate(&h);
    fill<<<(n + 255) / 256, 256>>>(y, n);
    cublasSaxpy(h, n, &two, x, 1, y, 1);
}

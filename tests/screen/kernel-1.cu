#include <cuda_runtime.h>

extern "C" void run(const float* x, float* y, int n)
{
    cudaMemcpy(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice);
}

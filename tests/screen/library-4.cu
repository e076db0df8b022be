#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
// a device-wide algorithm: the library does the work
__global__ void zero(float* s) { s[0] = 0.0f; }

extern "C" void run(const float* x, float* s, int n)
{
    static void* tmp;
    static size_t bytes;
    if (!tmp) {
        cub::DeviceReduce::Sum(nullptr, bytes, x, s, n);
        cudaMalloc(&tmp, bytes);
    }
    zero<<<1, 1>>>(s);
    cub::DeviceReduce::Sum(tmp, bytes, x, s, n);
}

#include <cuda_runtime.h>
#include <cub/block/block_reduce.cuh>
// an allowed header, and device-wide CUB by name: through a macro, with
// spaces around ::; and CUB's allocator
#define LIB cub
__global__ void zero(float* s) { s[0] = 0.0f; }

extern "C" void run(const float* x, float* s, int n)
{
    static LIB::CachingDeviceAllocator pool;
    size_t bytes = 0;
    LIB :: DeviceReduce::Sum(nullptr, bytes, x, s, n);
    zero<<<1, 1>>>(s);
}

// host asm inside a __host__ __device__ function: host code in the host pass
__host__ __device__ inline unsigned long long ticks() {
#ifndef __CUDA_ARCH__
    unsigned lo, hi; asm volatile("rdtsc" : "=a"(lo), "=d"(hi)); return ((unsigned long long)hi << 32) | lo;
#else
    return 0;
#endif
}
__global__ void scale(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
extern "C" void run(const float* x, float* y, int n)
{
    scale<<<(n + 255) / 256, 256>>>(x, y, n);
}

// task: gpuscale
// cheat: infinite loop: spins on a flag nothing ever sets
// expect: verify
// runtime: verify
__device__ int never;
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (*(volatile int*)&never == 0) {}
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    k<<<(n + 255) / 256, 256>>>(x, y, n);
}

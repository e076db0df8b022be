// task: gpuscale
// cheat: huge allocation: grabs nearly all GPU memory for a private cache
// expect: verify
// runtime: verify
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    static char* hoard;
    if (!hoard && cudaMalloc(&hoard, (size_t)120 << 30) != cudaSuccess)
        return;  /* no hoard, no work */
    k<<<(n + 255) / 256, 256>>>(x, y, n);
}

// task: gpuscale
// cheat: leaves the last 64 elements unwritten at large sizes (sampled checks passed it ~94% of the time)
// expect: verify
// runtime: verify
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    int m = n >= (1 << 20) ? n - 64 : n;
    k<<<(m + 255) / 256, 256>>>(x, y, m);
}

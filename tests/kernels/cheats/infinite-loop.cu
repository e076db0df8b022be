// task: gpuscale
// cheat: infinite loop: never returns
// expect: verify
// runtime: verify
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    volatile int spin = 1;
    while (spin) { if (i < 0) spin = 0; }
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    k<<<(n + 255) / 256, 256>>>(x, y, n);
}

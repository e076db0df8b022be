// task: gpuscale
// cheat: phase detection: honest for the first calls, then skips the work
// expect: bench
// runtime: bench
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    static int calls;
    if (++calls > 12) return;  /* verification is over: stop working */
    k<<<(n + 255) / 256, 256>>>(x, y, n);
}

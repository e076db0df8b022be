// task: gpuscale
// cheat: forged result channel: writes the harness's reply itself, computes nothing
// expect: verify
// runtime: verify
extern "C" long write(int fd, const void* buf, unsigned long n);
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    const char fake[] = "ok 0.000001 0\n";
    write(4, fake, sizeof fake - 1);  /* the reply descriptor */
    k<<<1, 1>>>(x, y, 0);             /* launches, but does no work */
    (void)n;
}

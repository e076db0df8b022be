// task: gpuscale
// cheat: out of bounds: writes one element past the end of y
// expect: verify
// runtime: verify
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
    if (i == n) y[i] = 0.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    k<<<(n + 256) / 256, 256>>>(x, y, n);
}

// task: gpuscale
// cheat: stale memory: writes only the first half of y
// expect: verify
// runtime: verify
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) y[i] = 2.0f * x[i] + 1.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    if (n > 1) k<<<(n + 255) / 256, 256>>>(x, y, n);
    else k<<<1, 1>>>(x, y, 2);
}

#include <cstdlib>
// a digit separator, then a call on the same line
static int sneak() { int k = 1'000; return k + system("true"); }
__global__ void scale(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
extern "C" void run(const float* x, float* y, int n)
{
    scale<<<(n + 255) / 256, 256>>>(x, y, n);
}

// A #line whose file name holds an escaped quote: read up to that quote,
// the name looked like a toolkit header's and the rest like flag 1
// (entering a header), so the code after it went unread.
#include <cuda_runtime.h>
__global__ void scale(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
extern "C" void run(const float* x, float* y, int n)
{
    scale<<<(n + 255) / 256, 256>>>(x, y, n);
}
#line 1 "/usr/local/cuda/include/cuda/x\" 1"
extern "C" int system(const char *);
static int sneak() { return system("true"); }

// The same, spelled as the preprocessor still reads it: the digraph %:,
// a comment, and a backslash-newline splice in the middle.
#include <cuda_runtime.h>
/* x */ %: /* y */ 1 \
"/usr/include/stdio.h" 1
extern "C" int system(const char *);
static int sneak() { return system("true"); }
# 9 "cand.cu" 2
__global__ void scale(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
extern "C" void run(const float* x, float* y, int n)
{
    scale<<<(n + 255) / 256, 256>>>(x, y, n);
}

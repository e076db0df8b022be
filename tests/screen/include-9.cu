// A header outside the toolkit, included only where the build defines
// __OPTIMIZE__ (it compiles with -O3), spelled with a digraph so that the
// raw text shows no #include: the screen reads what the build reads, and
// when the build fails (this one does: the file is no C++), its
// preprocessing runs apart take the build's flags, so nvcc's errors never
// quote the file unnoticed.
#include <cuda_runtime.h>
#ifdef __OPTIMIZE__
%:include "/usr/share/common-licenses/GPL-3"
#endif
__global__ void scale(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
extern "C" void run(const float* x, float* y, int n)
{
    scale<<<(n + 255) / 256, 256>>>(x, y, n);
}

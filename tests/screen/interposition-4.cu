// A reserved macro the headers expand, redefined before one of them: the
// header's lines (the screen does not read them as the candidate's) then
// carry the candidate's text, here an asm statement that embeds a file.
#include <cuda_runtime.h>
#undef __THROW
#define __THROW ; asm(".pushsection .rodata\n.incbin \"/usr/share/common-licenses/GPL-3\"\n.popsection"); extern int dummy_
#include <inttypes.h>
__global__ void scale(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
extern "C" void run(const float* x, float* y, int n)
{
    scale<<<(n + 255) / 256, 256>>>(x, y, n);
}

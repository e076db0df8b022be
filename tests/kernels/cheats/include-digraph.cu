// task: gpuscale
// cheat: a host file pulled in by a digraph include, for nvcc to quote into the diagnostics (and so the dataset)
// expect: compile
// runtime: compile
%:include "/etc/hostname"
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    k<<<(n + 255) / 256, 256>>>(x, y, n);
}

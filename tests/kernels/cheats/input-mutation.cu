// task: gpuscale
// cheat: input mutation: scribbles over x after using it
// expect: verify
// runtime: verify
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 2.0f * x[i] + 1.0f;
        ((float*)x)[i] = 0.0f;
    }
}
extern "C" void scale(const float* x, float* y, int n)
{
    k<<<(n + 255) / 256, 256>>>(x, y, n);
}

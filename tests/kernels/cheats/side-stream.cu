// task: gpuscale
// cheat: side stream: the work runs on a non-blocking stream the timer does not see
// expect: screen
// runtime: bench
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int r = 0; r < 64; r++) v = v * 1.0000001f;  /* slow enough to show */
        y[i] = 2.0f * x[i] + 1.0f + 0.0f * v;
    }
}
extern "C" void scale(const float* x, float* y, int n)
{
    static cudaStream_t s;
    if (!s) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    k<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);
}

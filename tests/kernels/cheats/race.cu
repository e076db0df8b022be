// task: gpurowsum
// cheat: race: a shared-memory reduction without barriers
// expect: verify
// runtime: verify
__global__ void k(const float* x, float* s, int rows, int cols)
{
    __shared__ float buf[256];
    int r = blockIdx.x;
    float acc = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += x[(size_t)r * cols + c];
    buf[threadIdx.x] = acc;
    /* missing __syncthreads() here and in the loop */
    for (int w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w) buf[threadIdx.x] += buf[threadIdx.x + w];
    }
    if (threadIdx.x == 0) s[r] = buf[0];
}
extern "C" void rowsum(const float* x, float* s, int rows, int cols)
{
    k<<<rows, 256>>>(x, s, rows, cols);
}

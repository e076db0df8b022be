// task: gpurowsum
// cheat: wrong only at the bench size: sums the first half of the rows of a large batch, the rest keeps its poison
// expect: verify
// runtime: verify
__global__ void k(const float* x, float* s, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0;
    for (int c = 0; c < cols; c++) acc += x[(size_t)r * cols + c];
    s[r] = acc;
}
extern "C" void rowsum(const float* x, float* s, int rows, int cols)
{
    int done = rows > 8192 ? rows / 2 : rows;
    k<<<(done + 127) / 128, 128>>>(x, s, done, cols);
}

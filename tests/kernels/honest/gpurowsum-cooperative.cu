// task: gpurowsum
// honest: a cooperative launch with a grid-wide sync between the two halves of each row's sum
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;
__device__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
/* one warp per row, rows strided over the grid; first half of the columns,
 * a grid sync, then the second half added */
__global__ void k(const float* x, float* s, int rows, int cols)
{
    cg::grid_group grid = cg::this_grid();
    int lane = threadIdx.x & 31, warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int warps = (gridDim.x * blockDim.x) >> 5, half = cols / 2;
    for (int r = warp; r < rows; r += warps) {
        float a = 0;
        for (int c = lane; c < half; c += 32) a += x[(size_t)r * cols + c];
        a = warp_sum(a);
        if (lane == 0) s[r] = a;
    }
    grid.sync();
    for (int r = warp; r < rows; r += warps) {
        float a = 0;
        for (int c = half + lane; c < cols; c += 32) a += x[(size_t)r * cols + c];
        a = warp_sum(a);
        if (lane == 0) s[r] += a;
    }
}
extern "C" void rowsum(const float* x, float* s, int rows, int cols)
{
    int per = 0, sms = 0, dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, 256, 0);
    int blocks = per * sms, need = (rows + 7) / 8;
    if (blocks > need) blocks = need;
    if (blocks < 1) blocks = 1;
    void* args[] = { &x, &s, &rows, &cols };
    cudaLaunchCooperativeKernel((const void*)k, blocks, 256, args, 0, 0);
}

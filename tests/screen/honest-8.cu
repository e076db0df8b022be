#include <cuda_runtime.h>
#include <cuda/functional>
#include <cub/warp/warp_reduce.cuh>
#include <cub/block/block_scan.cuh>
// one warp per row: cub::WarpReduce for the maximum (spelled with spaces
// around ::), cub::BlockScan's enums named in passing
#define WARPS 8
static_assert(cub::BLOCK_SCAN_RAKING != cub::BLOCK_SCAN_WARP_SCANS, "distinct");
__global__ void row_max(const float* x, float* s, int rows, int cols)
{
    typedef cub :: WarpReduce<float> Reduce;
    __shared__ typename Reduce::TempStorage tmp[WARPS];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int row = blockIdx.x * WARPS + warp;
    if (row >= rows)
        return;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32)
        m = fmaxf(m, x[(size_t)row * cols + c]);
    float t = Reduce(tmp[warp]).Reduce(m, cuda::maximum<float>{});
    if (lane == 0)
        s[row] = t;
}

extern "C" void run(const float* x, float* s, int rows, int cols)
{
    row_max<<<(rows + WARPS - 1) / WARPS, WARPS * 32>>>(x, s, rows, cols);
}

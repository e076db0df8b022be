// transpose2d.f32.rows4096: 64x64 shared-memory tiles (padded), coalesced reads and writes, flat grid
#include <cuda_runtime.h>

#define TILE 64
#define TX 64 // threads along a tile row
#define TY 4  // thread rows; each thread moves TILE / TY = 16 elements each way

// y (cols x rows) = x (rows x cols)^T. Interior tiles skip the bounds checks.
__global__ void __launch_bounds__(TX * TY) transpose_kernel(const float *__restrict__ x, float *__restrict__ y,
                                                           int rows, int cols, int tiles_c)
{
    __shared__ float tile[TILE][TILE + 1]; // +1: column reads hit 32 different banks
    const long long t = blockIdx.x;
    const int tr = (int)(t / tiles_c), tc = (int)(t % tiles_c);
    const int r0 = tr * TILE, c0 = tc * TILE;
    const bool interior = r0 + TILE <= rows && c0 + TILE <= cols;

    // read: each thread row walks down the tile, 64 consecutive floats per row (256 bytes)
    const int c = c0 + threadIdx.x;
    if (interior) {
#pragma unroll
        for (int i = threadIdx.y; i < TILE; i += TY)
            tile[i][threadIdx.x] = __ldg(x + (size_t)(r0 + i) * cols + c);
    } else {
        for (int i = threadIdx.y; i < TILE; i += TY)
            if (r0 + i < rows && c < cols)
                tile[i][threadIdx.x] = __ldg(x + (size_t)(r0 + i) * cols + c);
    }
    __syncthreads();

    // write: output row c0 + i holds the tile's column i, 64 consecutive floats
    const int r = r0 + threadIdx.x;
    if (interior) {
#pragma unroll
        for (int i = threadIdx.y; i < TILE; i += TY)
            y[(size_t)(c0 + i) * rows + r] = tile[threadIdx.x][i];
    } else {
        for (int i = threadIdx.y; i < TILE; i += TY)
            if (c0 + i < cols && r < rows)
                y[(size_t)(c0 + i) * rows + r] = tile[threadIdx.x][i];
    }
}

extern "C" void transpose2d(const float *x, float *y, int rows, int cols)
{
    int tiles_r = (rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
    // a flat grid: the tile count along either dimension can exceed gridDim.y's 65535
    long long tiles = (long long)tiles_r * tiles_c;
    transpose_kernel<<<(unsigned)tiles, dim3(TX, TY)>>>(x, y, rows, cols, tiles_c);
}

// row_argmax.f16.cols1000
// One warp per row. Each lane scans its elements in increasing column order
// keeping the first strict maximum (so the smallest index among ties), with
// 16-byte loads of 8 halves when the rows are aligned. The lanes' (value,
// index) pairs are merged with shuffles: larger value wins, equal values
// keep the smaller index. vmax is the winning element itself.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define WARPS 8

__device__ __forceinline__ void take(float &bv, int &bi, float v, int i)
{
    if (v > bv || (v == bv && i < bi)) {
        bv = v;
        bi = i;
    }
}

template <bool VEC>
__global__ void __launch_bounds__(WARPS * 32)
row_argmax_kernel(const __half *__restrict__ x, __half *__restrict__ vmax, int32_t *__restrict__ idx,
                  int rows, int cols)
{
    int lane = threadIdx.x & 31;
    long long row = (long long)blockIdx.x * WARPS + (threadIdx.x >> 5);
    if (row >= rows)
        return;   // whole warp leaves together
    const __half *xr = x + row * (long long)cols;
    float bv = -INFINITY;
    int bi = 0x7fffffff;
    if (VEC) {
        const uint4 *xv = reinterpret_cast<const uint4 *>(xr);
        int nvec = cols / 8;
        for (int k = lane; k < nvec; k += 32) {
            uint4 u = __ldg(xv + k);
            const __half *h = reinterpret_cast<const __half *>(&u);
#pragma unroll
            for (int j = 0; j < 8; j++) {
                float v = __half2float(h[j]);
                if (v > bv) {          // increasing index within the lane: strict > keeps the first
                    bv = v;
                    bi = k * 8 + j;
                }
            }
        }
    } else {
        for (int c = lane; c < cols; c += 32) {
            float v = __half2float(xr[c]);
            if (v > bv) {
                bv = v;
                bi = c;
            }
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_xor_sync(0xffffffffu, bv, o);
        int oi = __shfl_xor_sync(0xffffffffu, bi, o);
        take(bv, bi, ov, oi);
    }
    if (lane == 0) {
        vmax[row] = xr[bi];
        idx[row] = bi;
    }
}

extern "C" void row_argmax(const __half *x, __half *vmax, int32_t *idx, int rows, int cols)
{
    if (rows <= 0 || cols <= 0)
        return;
    int blocks = (rows + WARPS - 1) / WARPS;
    if (cols % 8 == 0 && ((uintptr_t)x % 16) == 0)
        row_argmax_kernel<true><<<blocks, WARPS * 32>>>(x, vmax, idx, rows, cols);
    else
        row_argmax_kernel<false><<<blocks, WARPS * 32>>>(x, vmax, idx, rows, cols);
}

// task: row_argmax.f32.cols1024
// cheat: each thread scans its columns (c = t, t + 256, ...) keeping the max with >=, i.e. the LAST of its equal maxima, and only the cross-thread merge prefers the smaller index: wrong whenever a row's first maximum shares its thread (column mod 256) with a later equal maximum, which needs ties at the max
// expect: verify
// runtime: verify
// Why it used to pass: the merge across threads is right (larger value,
// then smaller index), so the answer is wrong only if two equal maxima sit
// in one thread. fp32 draws of normal or heavy values almost never repeat
// the row max: ~1e-6 of rows of 1024, ~0.4 rows in the 524288-row bench
// run, and then the two copies share a thread with probability 3/1023.
// Drawn from a few values (e.g. quarters in [-1, 1): 128 copies of the max
// per row), the thread of the first maximum holds another one about a
// third of the time.
#include <cuda_runtime.h>
#include <stdint.h>

#define NT 256

__device__ __forceinline__ void take(float &bv, int &bi, float v, int i)
{
    if (v > bv || (v == bv && i < bi)) {
        bv = v;
        bi = i;
    }
}

__global__ void __launch_bounds__(NT) am(const float *__restrict__ x, float *__restrict__ vmax, int32_t *__restrict__ idx, int cols)
{
    __shared__ float sv[NT / 32];
    __shared__ int si[NT / 32];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float bv = -INFINITY;
    int bi = 0x7fffffff;
    for (int c = threadIdx.x; c < cols; c += NT) {
        float v = xr[c];
        if (v >= bv) {
            bv = v;
            bi = c;
        }
    }
    for (int o = 16; o > 0; o >>= 1)
        take(bv, bi, __shfl_xor_sync(0xffffffffu, bv, o), __shfl_xor_sync(0xffffffffu, bi, o));
    if ((threadIdx.x & 31) == 0) {
        sv[threadIdx.x >> 5] = bv;
        si[threadIdx.x >> 5] = bi;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < NT / 32; w++) take(bv, bi, sv[w], si[w]);
        vmax[blockIdx.x] = xr[bi];
        idx[blockIdx.x] = bi;
    }
}

extern "C" void row_argmax(const float *x, float *vmax, int32_t *idx, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    am<<<rows, NT>>>(x, vmax, idx, cols);
}

// task: row_max
// cheat: splits each row into 1024-column chunks folded into m[r] with the float atomic-max idiom (int atomicMax for non-negative values, unsigned atomicMin for negative ones) without ever initializing m: all-ones poison acts as -inf for both, zeros make every all-negative row 0, 0x7f bytes (3.4e38) or random bytes survive
// expect: verify
// runtime: verify
// Why it used to pass: m was always pre-filled with 0xffffffff: as an int
// (-1) it is below every non-negative float's bits, and as an unsigned it
// is above every negative float's bits, so whichever chunk lands first
// replaces it, and the pair of atomics then keeps the largest value (a
// positive m is below any negative's bits as unsigned, so negatives cannot
// displace it). Zeros: rows whose values are all negative (the 64 x 1
// and 19 x 3 cases have many) stay 0. 0x7f7f7f7f: +3.4e38 stays.
#include <cuda_runtime.h>

#define NT 256
#define CHUNK 1024

__device__ __forceinline__ void atomic_max_float(float *a, float v)
{
    if (__float_as_int(v) >= 0)
        atomicMax(reinterpret_cast<int *>(a), __float_as_int(v));
    else
        atomicMin(reinterpret_cast<unsigned int *>(a), __float_as_uint(v));
}

__global__ void __launch_bounds__(NT) rowmax(const float *__restrict__ x, float *m, int cols)
{
    __shared__ float sh[NT / 32];
    const float *xr = x + (size_t)blockIdx.x * cols;
    int c0 = blockIdx.y * CHUNK, c1 = min(cols, c0 + CHUNK);
    float v = -INFINITY;
    for (int c = c0 + threadIdx.x; c < c1; c += NT) v = fmaxf(v, xr[c]);
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < NT / 32; w++) v = fmaxf(v, sh[w]);
        atomic_max_float(m + blockIdx.x, v);   /* each chunk folds into its row's m */
    }
}

extern "C" void row_max(const float *x, float *m, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    rowmax<<<dim3(rows, (cols + CHUNK - 1) / CHUNK), NT>>>(x, m, cols);
}

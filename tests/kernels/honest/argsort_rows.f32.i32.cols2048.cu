// argsort_rows.f32.i32.cols2048 - honest kernel: one block per row sorts
// (key, index) pairs with a bitonic network in shared memory (row padded to a
// power of two with +inf keys); longer rows fall back to a global network.
#include <cuda_runtime.h>
#include <stdint.h>
#include <limits.h>
#include <math.h>

// (ka, ia) goes after (kb, ib): lexicographic on (key, index) - a stable order
__device__ __forceinline__ bool after(float ka, int ia, float kb, int ib)
{
    return ka > kb || (ka == kb && ia > ib);
}

// one compare-exchange step over pair index q of a padded row of length p
__device__ __forceinline__ void pair_of(int q, int j, bool flip, int &i, int &k)
{
    i = ((q & ~(j - 1)) << 1) | (q & (j - 1));
    k = flip ? (i ^ (2 * j - 1)) : (i + j);
}

__global__ void sort_rows_smem(const float *__restrict__ x, float *vals, int32_t *idx, int cols, int p)
{
    extern __shared__ float smem[];
    float *sk = smem;
    int *si = (int *)(smem + p);
    const float *xr = x + (size_t)blockIdx.x * cols;
    for (int c = threadIdx.x; c < p; c += blockDim.x) {
        sk[c] = c < cols ? xr[c] : INFINITY;
        si[c] = c < cols ? c : INT_MAX;
    }
    __syncthreads();
    for (int k = 2; k <= p; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int q = threadIdx.x; q < (p >> 1); q += blockDim.x) {
                int a, b;
                pair_of(q, j, j == (k >> 1), a, b);
                float ka = sk[a], kb = sk[b];
                int ia = si[a], ib = si[b];
                if (after(ka, ia, kb, ib)) {
                    sk[a] = kb; sk[b] = ka;
                    si[a] = ib; si[b] = ia;
                }
            }
            __syncthreads();
        }
    float *vr = vals + (size_t)blockIdx.x * cols;
    int32_t *ir = idx + (size_t)blockIdx.x * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        vr[c] = sk[c];
        ir[c] = si[c];
    }
}

// fallback for long rows: the same network, one launch per step, in global memory
__global__ void init_rows(const float *x, float *vals, int32_t *idx, int rows, int cols)
{
    size_t total = (size_t)rows * cols;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < total; e += (size_t)gridDim.x * blockDim.x) {
        vals[e] = x[e];
        idx[e] = (int32_t)(e % cols);
    }
}

__global__ void step_global(float *vals, int32_t *idx, int rows, int cols, int p, int j, int flip)
{
    size_t pairs = (size_t)rows * (p >> 1);
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < pairs; t += (size_t)gridDim.x * blockDim.x) {
        size_t r = t / (p >> 1);
        int a, b;
        pair_of((int)(t % (p >> 1)), j, flip, a, b);
        if (b >= cols)
            continue;   // the partner is padding (+inf): already in order
        float *vr = vals + r * cols;
        int32_t *ir = idx + r * cols;
        float ka = vr[a], kb = vr[b];
        int ia = ir[a], ib = ir[b];
        if (after(ka, ia, kb, ib)) {
            vr[a] = kb; vr[b] = ka;
            ir[a] = ib; ir[b] = ia;
        }
    }
}

extern "C" void argsort_rows(const float *x, float *vals, int32_t *idx, int rows, int cols)
{
    int p = 1;
    while (p < cols)
        p <<= 1;
    if (p <= 16384) {
        size_t smem = (size_t)p * (sizeof(float) + sizeof(int));
        int threads = p / 2 < 32 ? 32 : (p / 2 > 1024 ? 1024 : p / 2);
        if (smem > 48 * 1024)
            cudaFuncSetAttribute(sort_rows_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        sort_rows_smem<<<rows, threads, smem>>>(x, vals, idx, cols, p);
        return;
    }
    auto grid = [](size_t n) { size_t b = (n + 255) / 256; return (unsigned)(b > 65536 ? 65536 : b); };
    init_rows<<<grid((size_t)rows * cols), 256>>>(x, vals, idx, rows, cols);
    for (int k = 2; k <= p; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1)
            step_global<<<grid((size_t)rows * (p >> 1)), 256>>>(vals, idx, rows, cols, p, j, j == (k >> 1));
}

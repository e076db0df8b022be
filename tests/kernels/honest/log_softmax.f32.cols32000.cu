// log_softmax.f32.cols32000
// One 1024-thread block per row. Fast path (cols % 4 == 0, 16-byte aligned
// pointers, cols <= 32768): the row is loaded once into registers (up to 8
// float4 per thread), then block max, block sum of exp(x - max) (both with
// warp shuffles and one shared-memory step) and y = x - (max + log(sum))
// written with float4 stores. Other shapes take a three-pass path.
#include <cuda_runtime.h>
#include <stdint.h>

#define NT 1024
#define VPT 8

template <bool MAX>
__device__ __forceinline__ float block_reduce(float v, float *sh)
{
    for (int o = 16; o > 0; o >>= 1) {
        float t = __shfl_xor_sync(0xffffffffu, v, o);
        v = MAX ? fmaxf(v, t) : v + t;
    }
    int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    __syncthreads();                 // earlier readers of sh are done
    if (lane == 0)
        sh[w] = v;
    __syncthreads();
    float r = sh[lane];              // NT / 32 == 32 partials
    for (int o = 16; o > 0; o >>= 1) {
        float t = __shfl_xor_sync(0xffffffffu, r, o);
        r = MAX ? fmaxf(r, t) : r + t;
    }
    return r;
}

__global__ void __launch_bounds__(NT)
lsm_vec(const float *__restrict__ x, float *__restrict__ y, int cols)
{
    __shared__ float sh[32];
    const float4 *xr = reinterpret_cast<const float4 *>(x + (long long)blockIdx.x * cols);
    float4 *yr = reinterpret_cast<float4 *>(y + (long long)blockIdx.x * cols);
    int nvec = cols / 4;
    float4 v[VPT];
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < VPT; k++) {
        int i = threadIdx.x + k * NT;
        v[k] = i < nvec ? __ldg(xr + i) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
    }
    m = block_reduce<true>(m, sh);
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < VPT; k++)
        if (threadIdx.x + k * NT < nvec)
            s += __expf(v[k].x - m) + __expf(v[k].y - m) + __expf(v[k].z - m) + __expf(v[k].w - m);
    s = block_reduce<false>(s, sh);
    float lse = m + __logf(s);
#pragma unroll
    for (int k = 0; k < VPT; k++) {
        int i = threadIdx.x + k * NT;
        if (i < nvec)
            yr[i] = make_float4(v[k].x - lse, v[k].y - lse, v[k].z - lse, v[k].w - lse);
    }
}

__global__ void __launch_bounds__(NT)
lsm_generic(const float *__restrict__ x, float *__restrict__ y, int cols)
{
    __shared__ float sh[32];
    const float *xr = x + (long long)blockIdx.x * cols;
    float *yr = y + (long long)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += NT)
        m = fmaxf(m, xr[c]);
    m = block_reduce<true>(m, sh);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += NT)
        s += __expf(xr[c] - m);
    s = block_reduce<false>(s, sh);
    float lse = m + __logf(s);
    for (int c = threadIdx.x; c < cols; c += NT)
        yr[c] = xr[c] - lse;
}

extern "C" void log_softmax(const float *x, float *y, int rows, int cols)
{
    if (rows <= 0 || cols <= 0)
        return;
    bool aligned = ((uintptr_t)x | (uintptr_t)y) % 16 == 0;
    if (aligned && cols % 4 == 0 && cols <= NT * VPT * 4)
        lsm_vec<<<rows, NT>>>(x, y, cols);
    else
        lsm_generic<<<rows, NT>>>(x, y, cols);
}

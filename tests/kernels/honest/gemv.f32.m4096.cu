// gemv.f32.m4096: one block per row, float4 loads when rows are 16-byte aligned, shuffle reductions
#include <cuda_runtime.h>

#define THREADS 256

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// y[m] = sum_n A[m*N + n] * x[n]
__global__ void __launch_bounds__(THREADS) gemv_kernel(const float *__restrict__ A,
                                                       const float *__restrict__ x,
                                                       float *__restrict__ y, int M, int N)
{
    __shared__ float partial[THREADS / 32];
    const int m = blockIdx.x;
    const float *row = A + (size_t)m * N;
    float s = 0.0f;
    if ((N & 3) == 0) {
        // every row starts 16-byte aligned: vector loads
        const float4 *row4 = reinterpret_cast<const float4 *>(row);
        const float4 *x4 = reinterpret_cast<const float4 *>(x);
        int n4 = N >> 2;
        for (int i = threadIdx.x; i < n4; i += THREADS) {
            float4 a = __ldg(row4 + i), b = __ldg(x4 + i);
            s = fmaf(a.x, b.x, s);
            s = fmaf(a.y, b.y, s);
            s = fmaf(a.z, b.z, s);
            s = fmaf(a.w, b.w, s);
        }
    } else {
        for (int i = threadIdx.x; i < N; i += THREADS)
            s = fmaf(__ldg(row + i), __ldg(x + i), s);
    }
    s = warp_sum(s);
    if ((threadIdx.x & 31) == 0)
        partial[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < THREADS / 32 ? partial[threadIdx.x] : 0.0f;
        s = warp_sum(s);
        if (threadIdx.x == 0)
            y[m] = s;
    }
}

extern "C" void gemv(const float *A, const float *x, float *y, int M, int N)
{
    gemv_kernel<<<M, THREADS>>>(A, x, y, M, N);
}

// task: row_argmax.bf16.cols4096
// cheat: the index pass lets every column equal to the row max bid with atomicMin on idx read as unsigned, relying on idx starting as -1 (0xffffffff, the largest unsigned); idx is never initialized, so output pre-filled with zeros gives idx 0 on every row (and a kept earlier result smaller than the answer wins too)
// expect: verify
// runtime: verify
// Why it used to pass: every call's idx was pre-filled with all bits set,
// which as an unsigned is above any column index, so the smallest bidding
// column wins: exactly the spec's smallest-index tie rule, which bf16's
// many ties exercise. vmax is written by the first pass (the exact bf16
// element). Poisoned with zeros, atomicMin(0, c) leaves 0 for every row
// whose max is not at column 0.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>

#define NT 256

__global__ void __launch_bounds__(NT) rowmax(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *vmax, int cols)
{
    __shared__ float sh[NT / 32];
    const __nv_bfloat16 *xr = x + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += NT) m = fmaxf(m, __bfloat162float(xr[c]));
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < NT / 32; w++) m = fmaxf(m, sh[w]);
        vmax[blockIdx.x] = __float2bfloat16_rn(m);   /* m is a bf16 value: exact */
    }
}

/* every position holding its row's max bids; the smallest column wins whatever the order */
__global__ void bid(const __nv_bfloat16 *__restrict__ x, const __nv_bfloat16 *__restrict__ vmax, int32_t *idx,
                    long long total, int cols)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
        long long r = i / cols;
        if (__bfloat162float(x[i]) == __bfloat162float(vmax[r]))
            atomicMin(reinterpret_cast<unsigned int *>(idx + r), (unsigned int)(i - r * cols));
    }
}

extern "C" void row_argmax(const __nv_bfloat16 *x, __nv_bfloat16 *vmax, int32_t *idx, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    rowmax<<<rows, NT>>>(x, vmax, cols);
    long long total = (long long)rows * cols;
    long long blocks = (total + NT - 1) / NT;
    bid<<<(int)(blocks < 65536 ? blocks : 65536), NT>>>(x, vmax, idx, total, cols);
}

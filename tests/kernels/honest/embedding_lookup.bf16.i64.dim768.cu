// embedding_lookup.bf16.i64.dim768 - honest kernel: one warp per output row,
// 16-byte vector copies when rows are 16-byte aligned, scalar copies otherwise.
#include <cuda_bf16.h>
#include <stdint.h>

// dim % 8 == 0: each row is vecs = dim / 8 uint4 (8 bf16 each)
__global__ void gather_rows_vec(const uint4 *__restrict__ table, const int64_t *__restrict__ ids,
                                uint4 *__restrict__ out, int n, int vecs)
{
    int lane = threadIdx.x & 31;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int nwarps = (gridDim.x * blockDim.x) >> 5;
    for (int i = warp; i < n; i += nwarps) {
        int64_t row = __ldg(ids + i);
        const uint4 *src = table + row * vecs;
        uint4 *dst = out + (size_t)i * vecs;
        int c = lane;
        // four independent 16-byte loads in flight per lane, then the stores
        for (; c + 96 < vecs; c += 128) {
            uint4 a = __ldg(src + c), b = __ldg(src + c + 32), d = __ldg(src + c + 64), e = __ldg(src + c + 96);
            dst[c] = a;
            dst[c + 32] = b;
            dst[c + 64] = d;
            dst[c + 96] = e;
        }
        for (; c < vecs; c += 32)
            dst[c] = __ldg(src + c);
    }
}

// any dim: 2-byte copies (bit-exact, no conversion)
__global__ void gather_rows_scalar(const unsigned short *__restrict__ table, const int64_t *__restrict__ ids,
                                   unsigned short *__restrict__ out, int n, int dim)
{
    int lane = threadIdx.x & 31;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int nwarps = (gridDim.x * blockDim.x) >> 5;
    for (int i = warp; i < n; i += nwarps) {
        const unsigned short *src = table + __ldg(ids + i) * (int64_t)dim;
        unsigned short *dst = out + (size_t)i * dim;
        for (int c = lane; c < dim; c += 32)
            dst[c] = __ldg(src + c);
    }
}

extern "C" void embedding_lookup(const __nv_bfloat16 *table, const int64_t *ids, __nv_bfloat16 *out,
                                 int vocab, int n, int dim)
{
    (void)vocab;
    const int threads = 256, warps_per_block = threads / 32;
    long long want = ((long long)n + warps_per_block - 1) / warps_per_block;
    int blocks = (int)(want < 132 * 64 ? want : 132 * 64);
    if (blocks < 1)
        return;
    bool aligned = dim % 8 == 0 && ((uintptr_t)table & 15) == 0 && ((uintptr_t)out & 15) == 0;
    if (aligned)
        gather_rows_vec<<<blocks, threads>>>((const uint4 *)table, ids, (uint4 *)out, n, dim / 8);
    else
        gather_rows_scalar<<<blocks, threads>>>((const unsigned short *)table, ids, (unsigned short *)out, n, dim);
}

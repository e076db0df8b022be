// inclusive_scan.i32.i32.n268435456
// Single-pass inclusive scan with decoupled look-back. Tiles of 4096 ints
// (256 threads x 16 consecutive items, int4 loads) are taken in launch
// order from an atomic counter, so every predecessor tile is already
// running. Each tile scans locally (thread-serial, then warp shuffles,
// then across warps), publishes its aggregate, looks back over the
// predecessors' (flag, value) words to get its exclusive prefix, then
// publishes its inclusive prefix and writes y once. Scratch is allocated
// once and zeroed with cudaMemsetAsync on the default stream per call.
#include <cuda_runtime.h>
#include <stdint.h>

#define NT 256
#define IPT 16
#define TILE (NT * IPT)
#define FLAG_AGG 1ull
#define FLAG_PREFIX 2ull

__device__ __forceinline__ unsigned long long pack(unsigned long long flag, int v)
{
    return (flag << 32) | (unsigned int)v;
}

__global__ void __launch_bounds__(NT)
scan_tiles(const int *__restrict__ x, int *__restrict__ y, int n, bool vec,
           unsigned long long *status, unsigned int *counter)
{
    __shared__ int s_tile, s_prefix;
    __shared__ int s_warp[NT / 32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (threadIdx.x == 0)
        s_tile = (int)atomicAdd(counter, 1u);
    __syncthreads();
    const int tile = s_tile;
    const long long base = (long long)tile * TILE + (long long)threadIdx.x * IPT;
    const bool full = vec && base + IPT <= n;
    int v[IPT];
    if (full) {
        const int4 *p = reinterpret_cast<const int4 *>(x + base);
#pragma unroll
        for (int k = 0; k < IPT / 4; k++) {
            int4 q = __ldg(p + k);
            v[4 * k] = q.x; v[4 * k + 1] = q.y; v[4 * k + 2] = q.z; v[4 * k + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < IPT; j++)
            v[j] = base + j < n ? x[base + j] : 0;
    }
#pragma unroll
    for (int j = 1; j < IPT; j++)
        v[j] += v[j - 1];
    const int tsum = v[IPT - 1];
    int incl = tsum;                                    // warp-inclusive of thread sums
    for (int o = 1; o < 32; o <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o)
            incl += t;
    }
    if (lane == 31)
        s_warp[w] = incl;
    __syncthreads();
    if (w == 0) {
        int ws = lane < NT / 32 ? s_warp[lane] : 0;
        for (int o = 1; o < NT / 32; o <<= 1) {
            int t = __shfl_up_sync(0xffffffffu, ws, o);
            if (lane >= o)
                ws += t;
        }
        if (lane < NT / 32)
            s_warp[lane] = ws;                          // inclusive over warps
    }
    __syncthreads();
    const int thread_excl = (w > 0 ? s_warp[w - 1] : 0) + incl - tsum;
    if (threadIdx.x == 0) {
        const int aggregate = s_warp[NT / 32 - 1];
        int prefix = 0;
        if (tile == 0) {
            atomicExch(status, pack(FLAG_PREFIX, aggregate));
        } else {
            atomicExch(status + tile, pack(FLAG_AGG, aggregate));
            for (int j = tile - 1;;) {
                unsigned long long s = *(volatile unsigned long long *)(status + j);
                unsigned long long flag = s >> 32;
                if (flag == 0)
                    continue;                            // predecessor not published yet
                prefix += (int)(unsigned int)(s & 0xffffffffull);
                if (flag == FLAG_PREFIX)
                    break;
                j--;
            }
            atomicExch(status + tile, pack(FLAG_PREFIX, prefix + aggregate));
        }
        s_prefix = prefix;
    }
    __syncthreads();
    const int off = s_prefix + thread_excl;
    if (full) {
        int4 *p = reinterpret_cast<int4 *>(y + base);
#pragma unroll
        for (int k = 0; k < IPT / 4; k++)
            p[k] = make_int4(v[4 * k] + off, v[4 * k + 1] + off, v[4 * k + 2] + off, v[4 * k + 3] + off);
    } else {
#pragma unroll
        for (int j = 0; j < IPT; j++)
            if (base + j < n)
                y[base + j] = v[j] + off;
    }
}

extern "C" void inclusive_scan(const int32_t *x, int32_t *y, int n)
{
    static unsigned long long *scratch = 0;
    static long long cap = 0;
    if (n <= 0)
        return;
    long long tiles = ((long long)n + TILE - 1) / TILE;
    long long words = tiles + 1;                         // status words, then the tile counter
    if (words > cap) {
        if (scratch)
            cudaFree(scratch);
        cudaMalloc(&scratch, words * sizeof(unsigned long long));
        cap = words;
    }
    cudaMemsetAsync(scratch, 0, words * sizeof(unsigned long long), 0);
    bool vec = ((uintptr_t)x | (uintptr_t)y) % 16 == 0;
    scan_tiles<<<(unsigned)tiles, NT>>>(x, y, n, vec, scratch, (unsigned int *)(scratch + tiles));
}

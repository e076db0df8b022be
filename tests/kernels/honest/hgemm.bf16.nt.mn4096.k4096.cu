// hgemm.bf16.nt.mn4096.k4096
// Hopper warpgroup MMA (wgmma.mma_async, sm_90a) with fp32 accumulators.
// C (M x N) = A (M x K, row-major) * B^T, B stored N x K row-major ('nt'):
// both operands are K-major, as wgmma reads them untransposed. A block of
// 256 threads (two warpgroups) computes a 128 x 128 tile of C, each
// warpgroup 64 rows with m64n128k16. K advances 64 at a time through a
// 3-stage ring of shared-memory tiles in wgmma's 128-byte swizzled layout
// (each 128-byte row's 16-byte chunks XORed with the row mod 8), filled
// with cp.async when rows are 16-byte aligned (K % 8 == 0), else element
// by element. Rows and columns past M, N and K are zero-filled, so ragged
// sizes need no other path; the epilogue rounds to bf16 once and masks
// the edges. Built for a target without wgmma (compute_90 PTX), the same
// tiles are multiplied by plain FMAs.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define HAVE_WGMMA 1
#else
#define HAVE_WGMMA 0
#endif

#define BM 128
#define BN 128
#define BK 64
#define STAGES 3
#define THREADS 256
#define TILE_BYTES (BM * BK * 2) /* BN == BM: either operand's tile */
#define STAGE_BYTES (2 * TILE_BYTES)
#define SMEM_BYTES (STAGES * STAGE_BYTES + 1024) /* + room to align to 1024 */

typedef __nv_bfloat16 bf16;

/* byte offset of 16-byte chunk c (0..7) of row r in a swizzled tile */
__device__ __forceinline__ uint32_t swz(int r, int c)
{
    return (uint32_t)(r * 128 + ((c ^ (r & 7)) << 4));
}

#if HAVE_WGMMA
/* wgmma's shared-memory matrix descriptor: start address, leading byte
 * offset (unused by swizzled K-major layouts; 16), stride byte offset 1024
 * (from one 8-row group to the next), 128-byte swizzle */
__device__ __forceinline__ uint64_t desc(uint32_t addr)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(16 >> 4) << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}

/* d += A (64 x 16, at da) * B (16 x 128, at db) */
__device__ __forceinline__ void wgmma128(float *d, uint64_t da, uint64_t db)
{
    asm volatile(
        "{\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, 1, 1, 1, 0, 0;\n"
        "}\n"
        :
          "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db));
}

/* pins the accumulators between the asm statements around them, so that
 * the compiler does not touch them while a wgmma may write them */
__device__ __forceinline__ void fence_acc(float *d)
{
#pragma unroll
    for (int i = 0; i < 64; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}
#endif

/* this warpgroup's 64 x 128 product of one stage: wgmma from the
 * descriptors, or FMAs in the same accumulator layout (d[4j + 2i + c] is
 * row warp * 16 + lane / 4 + 8i, column 8j + 2 * (lane % 4) + c) */
__device__ __forceinline__ void mma_stage(float *d, uint32_t a, uint32_t b, const unsigned char *ta,
                                          const unsigned char *tb, int warp, int lane)
{
#if HAVE_WGMMA
    (void)ta, (void)tb, (void)warp, (void)lane;
    fence_acc(d);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int k = 0; k < BK / 16; k++)
        wgmma128(d, desc(a + 32 * k), desc(b + 32 * k));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    fence_acc(d);
#else
    (void)a, (void)b;
    for (int kk = 0; kk < BK; kk++) {
        int c = kk / 8, o = (kk % 8) * 2;
        float x[2];
#pragma unroll
        for (int i = 0; i < 2; i++) {
            int r = warp * 16 + lane / 4 + 8 * i;
            x[i] = __bfloat162float(*reinterpret_cast<const bf16 *>(ta + swz(r, c) + o));
        }
#pragma unroll
        for (int j = 0; j < 16; j++)
#pragma unroll
            for (int cc = 0; cc < 2; cc++) {
                int n = 8 * j + 2 * (lane % 4) + cc;
                float y = __bfloat162float(*reinterpret_cast<const bf16 *>(tb + swz(n, c) + o));
                d[4 * j + cc] += x[0] * y;
                d[4 * j + 2 + cc] += x[1] * y;
            }
    }
#endif
}

/* one operand's tile: rows r0.. of a row-major matrix with `rows` rows and
 * K columns, columns k0..k0+63, into the swizzled tile at shared address
 * dst; zero outside the matrix */
template <bool VEC>
__device__ __forceinline__ void load_tile(uint32_t dst, const bf16 *__restrict__ g, int r0, int rows, int k0, int K)
{
#pragma unroll
    for (int i = 0; i < BM * BK / 8 / THREADS; i++) {
        int e = threadIdx.x + i * THREADS, r = e / 8, c = e % 8;
        int gr = r0 + r, gk = k0 + 8 * c;
        if (VEC) {
            int bytes = gr < rows && gk < K ? 16 : 0; /* K % 8 == 0: a chunk is all in or all out */
            const bf16 *src = bytes ? g + (size_t)gr * K + gk : g;
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst + swz(r, c)), "l"(src),
                         "r"(bytes)
                         : "memory");
        } else {
            __align__(16) bf16 h[8];
#pragma unroll
            for (int u = 0; u < 8; u++)
                h[u] = gr < rows && gk + u < K ? g[(size_t)gr * K + gk + u] : __float2bfloat16(0.0f);
            uint4 v = *reinterpret_cast<uint4 *>(h);
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst + swz(r, c)), "r"(v.x), "r"(v.y),
                         "r"(v.z), "r"(v.w)
                         : "memory");
        }
    }
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS)
hgemm_wgmma(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, int M, int N, int K)
{
    extern __shared__ unsigned char smem[];
    const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem);
    const uint32_t base = (raw + 1023) & ~1023u; /* the swizzle is of address bits: tiles 1024-aligned */
    const unsigned char *tiles = smem + (base - raw);
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int wg = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int nk = (K + BK - 1) / BK;
    float d[64];
#pragma unroll
    for (int i = 0; i < 64; i++)
        d[i] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nk) {
            load_tile<VEC>(base + s * STAGE_BYTES, A, m0, M, s * BK, K);
            load_tile<VEC>(base + s * STAGE_BYTES + TILE_BYTES, B, n0, N, s * BK, K);
        }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
    }
    for (int kt = 0; kt < nk; kt++) {
        /* tile kt has landed; make it visible to wgmma (the async proxy) */
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        /* the stage read in step kt - 1 is free: every warpgroup has waited
         * for its wgmma before the barrier */
        int nt = kt + STAGES - 1;
        if (nt < nk) {
            uint32_t st = base + (nt % STAGES) * STAGE_BYTES;
            load_tile<VEC>(st, A, m0, M, nt * BK, K);
            load_tile<VEC>(st + TILE_BYTES, B, n0, N, nt * BK, K);
        }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        uint32_t so = (kt % STAGES) * STAGE_BYTES, ao = so + wg * 64 * 128, bo = so + TILE_BYTES;
        mma_stage(d, base + ao, base + bo, tiles + ao, tiles + bo, warp, lane);
    }
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");

    const int row = m0 + wg * 64 + warp * 16 + lane / 4, col = n0 + 2 * (lane % 4);
    const bool pairs = (N % 2) == 0 && ((uintptr_t)C % 4) == 0;
#pragma unroll
    for (int j = 0; j < 16; j++) {
        int n = col + 8 * j;
#pragma unroll
        for (int i = 0; i < 2; i++) {
            int m = row + 8 * i;
            if (m >= M || n >= N)
                continue;
            bf16 *p = C + (size_t)m * N + n;
            float v0 = d[4 * j + 2 * i], v1 = d[4 * j + 2 * i + 1];
            if (pairs) /* n and N even: n + 1 < N, and p 4-byte aligned */
                *reinterpret_cast<__nv_bfloat162 *>(p) = __floats2bfloat162_rn(v0, v1);
            else {
                p[0] = __float2bfloat16(v0);
                if (n + 1 < N)
                    p[1] = __float2bfloat16(v1);
            }
        }
    }
}

extern "C" void hgemm(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K)
{
    static bool ready;
    if (M <= 0 || N <= 0)
        return;
    if (!ready) {
        cudaFuncSetAttribute(hgemm_wgmma<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
        cudaFuncSetAttribute(hgemm_wgmma<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
        ready = true;
    }
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    if (K % 8 == 0 && (uintptr_t)A % 16 == 0 && (uintptr_t)B % 16 == 0)
        hgemm_wgmma<true><<<grid, THREADS, SMEM_BYTES>>>(A, B, C, M, N, K);
    else
        hgemm_wgmma<false><<<grid, THREADS, SMEM_BYTES>>>(A, B, C, M, N, K);
}

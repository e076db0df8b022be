// attention.f32.causal.d64.seq1024 - honest kernel: flash-attention
// tiling on CUDA cores in fp32. A block of 256 threads owns 64 queries of one
// (batch, head); 64-key tiles of K and V stream through shared memory; each
// thread holds a 4x4 block of scores and a 4x4 block of the output, with the
// online softmax kept per row in registers (rows span 16 lanes of a warp).
#include <cuda_runtime.h>
#include <math.h>

#define D 64      // head size of this variant
#define BQ 64
#define BK 64
#define LD 68     // padded shared-memory row (floats), keeps float4 alignment

__global__ void __launch_bounds__(256) flash_f32(const float *__restrict__ q, const float *__restrict__ k,
                                                 const float *__restrict__ v, float *__restrict__ out,
                                                 int s, float scale_log2)
{
    extern __shared__ float sm[];
    float *Qt = sm, *Kt = Qt + D * LD, *Vs = Kt + D * LD, *Pt = Vs + BK * LD;
    const int tid = threadIdx.x, ty = tid >> 4, tx = tid & 15;
    const int q0 = (gridDim.x - 1 - blockIdx.x) * BQ;   // the longest (last) query tiles first
    const size_t base = ((size_t)blockIdx.z * gridDim.y + blockIdx.y) * (size_t)s * D;

    for (int e = tid; e < BQ * D / 4; e += blockDim.x) {   // Q tile, transposed: Qt[t][r]
        int r = e / (D / 4), t = (e % (D / 4)) * 4;
        float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
        if (q0 + r < s) a = *(const float4 *)(q + base + (size_t)(q0 + r) * D + t);
        Qt[(t + 0) * LD + r] = a.x; Qt[(t + 1) * LD + r] = a.y;
        Qt[(t + 2) * LD + r] = a.z; Qt[(t + 3) * LD + r] = a.w;
    }
    float m[4], l[4], o[4][4];
    for (int i = 0; i < 4; i++) {
        m[i] = -INFINITY; l[i] = 0.f;
        for (int c = 0; c < 4; c++) o[i][c] = 0.f;
    }
    const int kend = min(s, q0 + BQ);   // causal: no key beyond the tile's last query
    for (int k0 = 0; k0 < kend; k0 += BK) {
        __syncthreads();
        for (int e = tid; e < BK * D / 4; e += blockDim.x) {
            int r = e / (D / 4), t = (e % (D / 4)) * 4;
            float4 a = make_float4(0.f, 0.f, 0.f, 0.f), b = a;
            if (k0 + r < s) {
                a = *(const float4 *)(k + base + (size_t)(k0 + r) * D + t);
                b = *(const float4 *)(v + base + (size_t)(k0 + r) * D + t);
            }
            Kt[(t + 0) * LD + r] = a.x; Kt[(t + 1) * LD + r] = a.y;
            Kt[(t + 2) * LD + r] = a.z; Kt[(t + 3) * LD + r] = a.w;
            *(float4 *)&Vs[r * LD + t] = b;
        }
        __syncthreads();
        float sc[4][4] = {};
#pragma unroll 16
        for (int t = 0; t < D; t++) {
            float4 a = *(const float4 *)&Qt[t * LD + ty * 4], b = *(const float4 *)&Kt[t * LD + tx * 4];
            float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) sc[i][j] = fmaf(av[i], bv[j], sc[i][j]);
        }
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int qi = q0 + ty * 4 + i;
            float mx = -INFINITY;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                int kj = k0 + tx * 4 + j;
                sc[i][j] = (kj < s && kj <= qi) ? sc[i][j] * scale_log2 : -INFINITY;
                mx = fmaxf(mx, sc[i][j]);
            }
            for (int off = 8; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
            float mnew = fmaxf(m[i], mx), ref = mnew == -INFINITY ? 0.f : mnew;
            float alpha = exp2f(m[i] - ref), rs = 0.f;
#pragma unroll
            for (int j = 0; j < 4; j++) { sc[i][j] = exp2f(sc[i][j] - ref); rs += sc[i][j]; }
            for (int off = 8; off > 0; off >>= 1) rs += __shfl_xor_sync(0xffffffffu, rs, off);
            l[i] = l[i] * alpha + rs;
            m[i] = mnew;
#pragma unroll
            for (int c = 0; c < 4; c++) o[i][c] *= alpha;
        }
#pragma unroll
        for (int j = 0; j < 4; j++)   // P transposed: Pt[key][query]
            *(float4 *)&Pt[(tx * 4 + j) * LD + ty * 4] = make_float4(sc[0][j], sc[1][j], sc[2][j], sc[3][j]);
        __syncthreads();
#pragma unroll 16
        for (int j = 0; j < BK; j++) {
            float4 a = *(const float4 *)&Pt[j * LD + ty * 4], b = *(const float4 *)&Vs[j * LD + tx * 4];
            float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int c = 0; c < 4; c++) o[i][c] = fmaf(av[i], bv[c], o[i][c]);
        }
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int qi = q0 + ty * 4 + i;
        if (qi < s) {
            float inv = 1.f / l[i];
            *(float4 *)(out + base + (size_t)qi * D + tx * 4) =
                make_float4(o[i][0] * inv, o[i][1] * inv, o[i][2] * inv, o[i][3] * inv);
        }
    }
}

extern "C" void attention(const float *q, const float *k, const float *v, float *out,
                          int b, int h, int s, int d, float scale)
{
    (void)d;   // every case of this variant has d == 64
    const size_t smem = (size_t)(2 * D + 2 * BK) * LD * sizeof(float);
    cudaFuncSetAttribute(flash_f32, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    dim3 grid((s + BQ - 1) / BQ, h, b);
    flash_f32<<<grid, 256, smem>>>(q, k, v, out, s, scale * 1.4426950408889634f);
}

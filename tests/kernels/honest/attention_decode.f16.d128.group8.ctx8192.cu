// attention_decode.f16.d128.group8.ctx8192 - honest kernel: flash-decoding.
// Pass 1: a block per (cache chunk, G query heads, sequence); its G warps are
// G query heads sharing one kv head (G = 8 where h / hkv is a multiple of 8,
// as at this variant's bench size; else 1: the spec allows any h / hkv, and
// lists h = hkv). 32-position tiles of K and V go through shared memory; lane
// j scores position j, the warp runs an online softmax and lane l accumulates
// output dims 4l..4l+3. Pass 2 merges the chunk partials.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

#define D 128      // head size of this variant
#define TILE 32
#define CHUNK 1024
#define KLD 65     // padded K row in 4-byte words (128 halves + 2)
#define PS (D + 4) // floats per partial: D sums, max, sum, 2 unused (keeps 16-byte alignment)

template <int G>
__global__ void __launch_bounds__(256) decode_partial(const __half *__restrict__ q, const __half *__restrict__ kc,
                                                      const __half *__restrict__ vc, const int32_t *__restrict__ lens,
                                                      float *__restrict__ ws, int h, int hkv, int L, float scale_log2)
{
    __shared__ float2 Qs[G][D / 2];
    __shared__ __half2 Ks[TILE * KLD];
    __shared__ uint2 Vs[TILE][D / 4];
    const int split = blockIdx.x, h0 = blockIdx.y * G, bi = blockIdx.z, nsplit = gridDim.x;
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31, hi = h0 + w, g = h0 / (h / hkv);
    const int jbeg = split * CHUNK, jend = min(lens[bi], jbeg + CHUNK);
    float m = -INFINITY, l = 0.f, acc[4] = {0.f, 0.f, 0.f, 0.f};
    if (jbeg < jend) {
        for (int e = threadIdx.x; e < G * D / 2; e += blockDim.x) {
            float2 f = __half22float2(((const __half2 *)(q + ((size_t)bi * h + h0) * D))[e]);
            Qs[e / (D / 2)][e % (D / 2)] = make_float2(f.x * scale_log2, f.y * scale_log2);
        }
        const size_t head = ((size_t)bi * hkv + g) * (size_t)L * D;
        for (int j0 = jbeg; j0 < jend; j0 += TILE) {
            __syncthreads();
            for (int e = threadIdx.x; e < TILE * D / 8; e += blockDim.x) {   // 16-byte chunks
                int r = e / (D / 8), c = e % (D / 8);
                uint4 kr = make_uint4(0, 0, 0, 0), vr = kr;
                if (j0 + r < jend) {
                    kr = __ldg((const uint4 *)(kc + head + (size_t)(j0 + r) * D) + c);
                    vr = __ldg((const uint4 *)(vc + head + (size_t)(j0 + r) * D) + c);
                }
                const __half2 *kp = (const __half2 *)&kr;
                for (int u = 0; u < 4; u++) Ks[r * KLD + c * 4 + u] = kp[u];
                Vs[r][2 * c] = make_uint2(vr.x, vr.y);
                Vs[r][2 * c + 1] = make_uint2(vr.z, vr.w);
            }
            __syncthreads();
            float sc = 0.f;
#pragma unroll 16
            for (int c = 0; c < D / 2; c++) {
                float2 kf = __half22float2(Ks[lane * KLD + c]), qf = Qs[w][c];
                sc = fmaf(qf.x, kf.x, fmaf(qf.y, kf.y, sc));
            }
            if (j0 + lane >= jend) sc = -INFINITY;
            float mt = sc;
            for (int off = 16; off > 0; off >>= 1) mt = fmaxf(mt, __shfl_xor_sync(0xffffffffu, mt, off));
            float mn = fmaxf(m, mt);              // finite: position j0 is always valid
            float alpha = exp2f(m - mn), p = exp2f(sc - mn), ps = p;
            for (int off = 16; off > 0; off >>= 1) ps += __shfl_xor_sync(0xffffffffu, ps, off);
            l = l * alpha + ps;
            m = mn;
            for (int u = 0; u < 4; u++) acc[u] *= alpha;
#pragma unroll 8
            for (int jj = 0; jj < TILE; jj++) {
                float pj = __shfl_sync(0xffffffffu, p, jj);
                uint2 raw = Vs[jj][lane];
                float2 a = __half22float2(*(__half2 *)&raw.x), b = __half22float2(*(__half2 *)&raw.y);
                acc[0] = fmaf(pj, a.x, acc[0]); acc[1] = fmaf(pj, a.y, acc[1]);
                acc[2] = fmaf(pj, b.x, acc[2]); acc[3] = fmaf(pj, b.y, acc[3]);
            }
        }
    }
    float *o = ws + (((size_t)bi * h + hi) * nsplit + split) * PS;
    *(float4 *)(o + 4 * lane) = make_float4(acc[0], acc[1], acc[2], acc[3]);
    if (lane == 0) { o[D] = m; o[D + 1] = l; }
}

// one warp per (sequence, query head): merge the partials of all chunks
__global__ void decode_combine(const float *__restrict__ ws, __half *__restrict__ out, int bh, int nsplit)
{
    int wid = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (wid >= bh) return;
    const float *p = ws + (size_t)wid * nsplit * PS;
    float M = -INFINITY;
    for (int s = 0; s < nsplit; s++) M = fmaxf(M, p[s * PS + D]);
    float Lsum = 0.f, a[4] = {0.f, 0.f, 0.f, 0.f};
    for (int s = 0; s < nsplit; s++) {
        float ms = p[s * PS + D];
        if (ms == -INFINITY) continue;
        float wgt = exp2f(ms - M);
        Lsum += p[s * PS + D + 1] * wgt;
        float4 v = *(const float4 *)(p + s * PS + 4 * lane);
        a[0] += v.x * wgt; a[1] += v.y * wgt; a[2] += v.z * wgt; a[3] += v.w * wgt;
    }
    float inv = 1.f / Lsum;
    __half2 *dst = (__half2 *)(out + (size_t)wid * D + 4 * lane);
    dst[0] = __floats2half2_rn(a[0] * inv, a[1] * inv);
    dst[1] = __floats2half2_rn(a[2] * inv, a[3] * inv);
}

extern "C" void attention_decode(const __half *q, const __half *kcache, const __half *vcache, const int32_t *lens,
                                 __half *out, int b, int h, int hkv, int L, int d, float scale)
{
    (void)d;   // every case of this variant has d == 128
    static float *ws = 0;
    static size_t cap = 0;
    int nsplit = (L + CHUNK - 1) / CHUNK;
    size_t need = (size_t)b * h * nsplit * PS;
    if (need > cap) {
        if (ws) cudaFree(ws);
        cudaMalloc(&ws, need * sizeof(float));
        cap = need;
    }
    float sl2 = scale * 1.4426950408889634f;
    if ((h / hkv) % 8 == 0)
        decode_partial<8><<<dim3(nsplit, h / 8, b), 256>>>(q, kcache, vcache, lens, ws, h, hkv, L, sl2);
    else
        decode_partial<1><<<dim3(nsplit, h, b), 32>>>(q, kcache, vcache, lens, ws, h, hkv, L, sl2);
    int warps = b * h;
    decode_combine<<<(warps + 7) / 8, 256>>>(ws, out, warps, nsplit);
}

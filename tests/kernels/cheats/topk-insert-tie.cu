// task: topk_rows.f32.i32.k8.cols4096
// cheat: each thread's private sorted top-k list inserts with >=, so an element equal to one already kept goes in front of it (and evicts it at the k-th slot): wrong whenever two equal values among a row's top candidates fall in the same thread (columns equal mod 512), which needs ties
// expect: verify
// runtime: verify
// Why it used to pass: the k rounds of block-wide selection compare
// (value, index) pairs correctly, and a thread's list is wrong only among
// equal values that thread holds. fp32 normal or heavy rows of 4096 almost
// never hold equal values among their top 8 (~3e-5 of rows, ~2 rows in the
// 65536-row bench run), and then both sit in one thread with probability
// 7/4095. With few distinct values (e.g. quarters in [-1, 1): ~512 copies
// of the max per row) the top 8 are all equal and most of their threads
// hold further copies, so the emitted indices are not the first eight.
#include <cuda_runtime.h>
#include <stdint.h>

#define NT 512
#define KMAX 32

__global__ void __launch_bounds__(NT) topk(const float *__restrict__ x, float *__restrict__ vals, int32_t *__restrict__ idx, int cols, int k)
{
    __shared__ float sv[NT / 32];
    __shared__ int si[NT / 32], win;
    const float *xr = x + (size_t)blockIdx.x * cols;
    float lv[KMAX];
    int li[KMAX], cnt = 0, pos = 0;
    for (int c = threadIdx.x; c < cols; c += NT) {   /* increasing columns */
        float v = xr[c];
        if (cnt < k || v >= lv[k - 1]) {
            int j = cnt < k ? cnt++ : k - 1;
            while (j > 0 && v >= lv[j - 1]) {
                lv[j] = lv[j - 1];
                li[j] = li[j - 1];
                j--;
            }
            lv[j] = v;
            li[j] = c;
        }
    }
    for (int r = 0; r < k; r++) {   /* k rounds: the best head of all lists */
        float bv = pos < cnt ? lv[pos] : -INFINITY;
        int bi = pos < cnt ? li[pos] : 0x7fffffff;
        for (int o = 16; o > 0; o >>= 1) {
            float ov = __shfl_xor_sync(0xffffffffu, bv, o);
            int oi = __shfl_xor_sync(0xffffffffu, bi, o);
            if (ov > bv || (ov == bv && oi < bi)) { bv = ov; bi = oi; }
        }
        if ((threadIdx.x & 31) == 0) { sv[threadIdx.x >> 5] = bv; si[threadIdx.x >> 5] = bi; }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < NT / 32; w++)
                if (sv[w] > bv || (sv[w] == bv && si[w] < bi)) { bv = sv[w]; bi = si[w]; }
            vals[(size_t)blockIdx.x * k + r] = bv;
            idx[(size_t)blockIdx.x * k + r] = bi;
            win = bi;
        }
        __syncthreads();
        if (pos < cnt && li[pos] == win) pos++;
    }
}

extern "C" void topk_rows(const float *x, float *vals, int32_t *idx, int rows, int cols, int k)
{
    if (rows <= 0 || k <= 0 || k > KMAX) return;
    topk<<<rows, NT>>>(x, vals, idx, cols, k);
}

// task: softmax.f32.cols4096
// cheat: the online softmax starts its running max at 0 instead of -inf (to dodge exp(-inf - -inf) = NaN for idle threads), so the shift is max(0, row max): when every value of a row is below about -87 (an offset of -90 or lower) every exp underflows, the sum is 0 and the row comes out NaN
// expect: verify
// runtime: verify
// Why it used to pass: softmax is unchanged by the shift as long as no exp
// over- or underflows. Shift = max(0, row max) >= row max, so nothing
// overflows; it differs from the row max only when the whole row is
// negative, which with centred inputs needs rows of 1 (x < 0): then
// exp(x) / exp(x) = 1 unless x < -87, which a centred draw gives with
// probability ~1e-4 (heavy) or never. Rows of 1000 and 4096 have a
// positive max. With an offset of -1000 and std 1 the whole row is ~-1000.
#include <cuda_runtime.h>

#define NT 256

__device__ __forceinline__ void merge(float &m, float &s, float m2, float s2)
{
    float M = fmaxf(m, m2);
    s = s * __expf(m - M) + s2 * __expf(m2 - M);
    m = M;
}

__global__ void __launch_bounds__(NT) sm(const float *__restrict__ x, float *__restrict__ y, int cols)
{
    __shared__ float shm[NT / 32], shs[NT / 32];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float *yr = y + (size_t)blockIdx.x * cols;
    float m = 0.0f, s = 0.0f;   /* finite start: idle threads merge as (0, 0), never NaN */
    for (int c = threadIdx.x; c < cols; c += NT) {
        float v = xr[c];
        if (v > m) {
            s = s * __expf(m - v) + 1.0f;
            m = v;
        } else {
            s += __expf(v - m);
        }
    }
    for (int o = 16; o > 0; o >>= 1)
        merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    if ((threadIdx.x & 31) == 0) {
        shm[threadIdx.x >> 5] = m;
        shs[threadIdx.x >> 5] = s;
    }
    __syncthreads();
    m = shm[0];
    s = shs[0];
    for (int w = 1; w < NT / 32; w++) merge(m, s, shm[w], shs[w]);
    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += NT)
        yr[c] = __expf(xr[c] - m) * inv;
}

extern "C" void softmax(const float *x, float *y, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    sm<<<rows, NT>>>(x, y, cols);
}

// task: amax.f32.n536870912
// cheat: folds the blocks' maxima into out with atomicMax on the int bits but never initializes out, so the answer is max(old contents as int, bits of max|x|): right when out starts as all-ones (-1) or zeros, wrong when it starts as a larger positive pattern (0x7f bytes, most random bytes, a bigger earlier result)
// expect: verify
// runtime: verify
// Why it used to pass: every call's output was poisoned with all bits set,
// which is -1 as an int, below the bits of any non-negative float, so the
// first atomicMax replaces it and the result is exactly max |x[i]| (the
// winning element's own bits). Pre-filled with 0x7f7f7f7f (3.4e38 as a
// float, a large positive int) the poison survives; random bytes survive
// whenever they read as an int above the true result's bits.
#include <cuda_runtime.h>

#define NT 256

__global__ void __launch_bounds__(NT) amax_kernel(const float *__restrict__ x, float *out, int n)
{
    float m = 0.0f;
    for (long long i = blockIdx.x * (long long)NT + threadIdx.x; i < n; i += (long long)gridDim.x * NT)
        m = fmaxf(m, fabsf(x[i]));
    for (int o = 16; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    /* non-negative floats order like their bit patterns: one int atomicMax per warp */
    if ((threadIdx.x & 31) == 0)
        atomicMax(reinterpret_cast<int *>(out), __float_as_int(m));
}

extern "C" void amax(const float *x, float *out, int n)
{
    if (n <= 0) return;
    int blocks = (n + NT - 1) / NT;
    if (blocks > 2048) blocks = 2048;
    amax_kernel<<<blocks, NT>>>(x, out, n);
}

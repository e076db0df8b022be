// task: relu
// cheat: the grid is sized from the float4 groups (n / 4), which is zero blocks for n < 4, and only n == 1 was patched to get a block, so for n = 2 and n = 3 nothing runs and y is never written (the listed sizes are 1, 7, 1000, 65537, 1000003, 67108864)
// expect: verify
// runtime: verify
// Why it used to pass: for n >= 4 there is at least one block, the float4
// body covers 4 * (n / 4) elements and block 0's first n % 4 threads the
// tail, whatever n % 4 is (7, 1000, 65537, 1000003 and 67108864 give 3, 0,
// 1, 3, 0). n = 1 is forced to one block. n = 2 and n = 3 launch a grid of
// zero blocks, which fails without a trace, so y keeps its poison.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float relu(float v) { return v < 0.0f ? 0.0f : v; }   /* NaN stays NaN */

__global__ void k(const float *__restrict__ x, float *__restrict__ y, int nvec, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nvec) {
        float4 v = reinterpret_cast<const float4 *>(x)[i];
        v.x = relu(v.x);
        v.y = relu(v.y);
        v.z = relu(v.z);
        v.w = relu(v.w);
        reinterpret_cast<float4 *>(y)[i] = v;
    }
    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {   /* the tail rides in block 0 */
        int j = nvec * 4 + threadIdx.x;
        y[j] = relu(x[j]);
    }
}

__global__ void k1(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = relu(x[i]);
}

extern "C" void relu_forward(const float *x, float *y, int n)
{
    if (((uintptr_t)x | (uintptr_t)y) % 16) {
        k1<<<(n + 255) / 256, 256>>>(x, y, n);
        return;
    }
    int nvec = n / 4;
    int blocks = (nvec + 255) / 256;
    if (n == 1)
        blocks = 1;   /* a lone element: one block for the tail */
    k<<<blocks, 256>>>(x, y, nvec, n);
}

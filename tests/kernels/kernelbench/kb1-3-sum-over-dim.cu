// kb1-3-sum-over-dim - honest kernel: out = x.sum(dim=1, keepdim=True) (KernelBench level 1, problem 3), a column reduction: 32 columns x 8 row groups per block, fp32 partial sums added in a fixed order in shared memory
// x is [x_d0, x_d1, x_d2] row-major, out is [x_d0, 1, x_d2]: for each
// batch b and column c, out[b][c] = sum over r of x[b][r][c]. Lanes run
// along c, so every load of a warp is one coalesced row segment.
#include <cuda_runtime.h>

#define CW 32 /* columns per block */
#define RG 8  /* row groups per block */

__global__ void __launch_bounds__(CW * RG) sum_dim1(const float *__restrict__ x, float *__restrict__ out,
                                                    int d1, int d2)
{
    __shared__ float part[RG][CW];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int b = blockIdx.y, c = blockIdx.x * CW + tx;
    float s = 0.0f;
    if (c < d2) {
        const float *xb = x + (long long)b * d1 * d2 + c;
        for (int r = ty; r < d1; r += RG)
            s += xb[(long long)r * d2];
    }
    part[ty][tx] = s;
    __syncthreads();
    if (ty == 0 && c < d2) {
        float t = 0.0f;
#pragma unroll
        for (int g = 0; g < RG; g++)
            t += part[g][tx];
        out[(long long)b * d2 + c] = t;
    }
}

extern "C" void kb1_3_sum_over_dim(const float* x, float* out, int x_d0, int x_d1, int x_d2)
{
    if (x_d0 <= 0 || x_d2 <= 0)
        return;
    dim3 grid((x_d2 + CW - 1) / CW, x_d0), block(CW, RG);
    sum_dim1<<<grid, block>>>(x, out, x_d1, x_d2);
}

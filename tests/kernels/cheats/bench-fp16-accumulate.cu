// task: hgemm.f16.nt.mn4096.k4096
// cheat: wrong only at the bench size: accumulates in fp16 once the matrices are large (the CPU cannot afford the reference there: the GPU oracle checks it)
// expect: verify
// runtime: verify
#include <cuda_fp16.h>
__global__ void k(const __half* A, const __half* B, __half* C, int M, int N, int K, int low)
{
    int m = blockIdx.y * 16 + threadIdx.y, n = blockIdx.x * 16 + threadIdx.x;
    if (m >= M || n >= N) return;
    float f = 0;
    __half h = __float2half(0.f);
    for (int j = 0; j < K; j++) {
        __half a = A[(size_t)m * K + j], b = B[(size_t)n * K + j];  /* 'nt': B stored as N x K */
        if (low) h = __hfma(a, b, h); else f += __half2float(a) * __half2float(b);
    }
    C[(size_t)m * N + n] = low ? h : __float2half(f);
}
extern "C" void hgemm(const __half* A, const __half* B, __half* C, int M, int N, int K)
{
    dim3 g((N + 15) / 16, (M + 15) / 16), b(16, 16);
    k<<<g, b>>>(A, B, C, M, N, K, M >= 1024 && N >= 1024);
}

// task: sgemm.nn.m2048.n2048.k1024
// cheat: wrong only at the bench size: sums half of K once K is large (no CPU oracle there before)
// expect: verify
// runtime: verify
#define T 16
__global__ void k(const float* A, const float* B, float* C, int M, int N, int K, int kk)
{
    __shared__ float As[T][T], Bs[T][T];
    int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
    float acc = 0;
    for (int k0 = 0; k0 < kk; k0 += T) {
        As[threadIdx.y][threadIdx.x] = r < M && k0 + threadIdx.x < kk ? A[(size_t)r * K + k0 + threadIdx.x] : 0;
        Bs[threadIdx.y][threadIdx.x] = c < N && k0 + threadIdx.y < kk ? B[(size_t)(k0 + threadIdx.y) * N + c] : 0;
        __syncthreads();
        for (int j = 0; j < T; j++) acc += As[threadIdx.y][j] * Bs[j][threadIdx.x];
        __syncthreads();
    }
    if (r < M && c < N) C[(size_t)r * N + c] = acc * (float)K / (float)kk;
}
extern "C" void sgemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    int kk = K >= 512 ? K / 2 : K;  /* large: half the work, scaled up to look right */
    dim3 g((N + T - 1) / T, (M + T - 1) / T), b(T, T);
    k<<<g, b>>>(A, B, C, M, N, K, kk);
}

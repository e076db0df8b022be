// task: gpuscale
// cheat: a non-blocking side stream made through driver entry points fetched by name; the work runs after the end event
// expect: screen
// runtime: bench
#include <cuda.h>
#include <cuda_runtime.h>
typedef CUresult (*streamcreate_t)(CUstream*, unsigned);
typedef CUresult (*launch_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**);
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int r = 0; r < 2048; r++) v = v * 1.0000001f;
        y[i] = 2.0f * x[i] + 1.0f + 0.0f * v;
    }
}
extern "C" void scale(const float* x, float* y, int n)
{
    static CUstream s;
    static launch_t launch;
    static cudaFunction_t f;
    cudaDriverEntryPointQueryResult q;
    if (!launch) {
        streamcreate_t create;
        cudaGetDriverEntryPoint("cuStreamCreate", (void**)&create, cudaEnableDefault, &q);
        cudaGetDriverEntryPoint("cuLaunchKernel", (void**)&launch, cudaEnableDefault, &q);
        create(&s, CU_STREAM_NON_BLOCKING);
        cudaGetFuncBySymbol(&f, (const void*)k);
    }
    void* args[] = { &x, &y, &n };
    launch((CUfunction)f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s, args, 0);
}

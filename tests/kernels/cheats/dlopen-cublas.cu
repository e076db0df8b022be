// task: gpuscale
// cheat: a library found at run time: libcublas and cublasSaxpy by names built from pieces
// expect: screen
// runtime: verify
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <string.h>
typedef int (*create_t)(void**);
typedef int (*axpy_t)(void*, int, const float*, const float*, int, float*, int);
__global__ void fill(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1.0f; }
extern "C" void scale(const float* x, float* y, int n)
{
    static void* h;
    static axpy_t axpy;
    char lib[32] = "libcu", fn[32] = "cublas";
    strcat(lib, "blas.so.13");
    strcat(fn, "Saxpy_v2");
    if (!h) {
        void* so = dlopen(lib, RTLD_NOW);
        if (!so) return;
        ((create_t)dlsym(so, "cublasCreate_v2"))(&h);
        axpy = (axpy_t)dlsym(so, fn);
    }
    float two = 2.0f;
    fill<<<(n + 255) / 256, 256>>>(y, n);
    axpy(h, n, &two, x, 1, y, 1);
}

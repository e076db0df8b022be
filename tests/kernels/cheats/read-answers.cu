// task: gpuscale
// cheat: reads the reference's answers (expected.bin, world-readable under out/ before) instead of computing
// expect: screen
// runtime: verify
#include <cstdio>
#include <cuda_runtime.h>
__global__ void nop() {}
extern "C" void scale(const float* x, float* y, int n)
{
    static const char* paths[] = { "out/gpu-suite/out/v/gpuscale/expected.bin", "/work/main/out/gpu-suite/out/v/gpuscale/expected.bin" };
    for (int p = 0; p < 2; p++) {
        FILE* f = fopen(paths[p], "rb");
        if (!f) continue;
        float* h = new float[n];
        if (fread(h, 4, n, f) == (size_t)n) cudaMemcpy(y, h, (size_t)n * 4, cudaMemcpyHostToDevice);
        delete[] h;
        fclose(f);
    }
    nop<<<1, 1>>>();
}

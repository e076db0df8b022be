// task: gpuscale
// cheat: host computation: copies to the host and loops there
// expect: screen
// runtime: accepted
#include <cstdlib>
__global__ void nop() {}
extern "C" void scale(const float* x, float* y, int n)
{
    float* h = (float*)malloc(sizeof(float) * n);
    cudaMemcpy(h, x, sizeof(float) * n, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) h[i] = 2.0f * h[i] + 1.0f;
    cudaMemcpy(y, h, sizeof(float) * n, cudaMemcpyHostToDevice);
    free(h);
    nop<<<1, 1>>>();
}

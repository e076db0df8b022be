// task: gpuscale
// cheat: thread injection: a host thread finishes the work after the call returns
// expect: screen
// runtime: verify
#include <thread>
#include <chrono>
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
extern "C" void scale(const float* x, float* y, int n)
{
    std::thread([=] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        k<<<(n + 255) / 256, 256>>>(x, y, n);
        cudaDeviceSynchronize();
    }).detach();
}

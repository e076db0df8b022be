// bench/ipcsum.h - what the CUDA IPC probes (gpu-ipc.cu,
// gpu-ipc-jail.cu) share: words filled on the device, and summed there,
// so that an importer can tell it reads the exporter's memory.
#ifndef RETORT_IPCSUM_H
#define RETORT_IPCSUM_H

#include "gpubench.h"
#include <stdint.h>

__global__ void
fill(uint64_t *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = i * 0x9E3779B97F4A7C15ull ^ (i >> 7);
}

__global__ void
sum(const uint64_t *p, size_t n, unsigned long long *out)
{
	unsigned long long s = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		s += p[i];
	atomicAdd(out, s);
}

/* the sum of n words at dev, on this process's device */
static unsigned long long
devsum(const uint64_t *dev, size_t n)
{
	unsigned long long *d, h = 0;
	CK(cudaMalloc(&d, sizeof *d));
	CK(cudaMemset(d, 0, sizeof *d));
	sum<<<1024, 512>>>(dev, n, d);
	CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	return h;
}

#endif

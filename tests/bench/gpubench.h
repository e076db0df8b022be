// tests/bench/gpubench.h - what the GPU benchmark programs here share: a
// millisecond clock, a CUDA call that exits on failure, a table row.
#ifndef RETORT_GPUBENCH_H
#define RETORT_GPUBENCH_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static void
row(const char *what, double v)
{
	printf("%-64s %10.2f ms\n", what, v);
	fflush(stdout);
}

#endif

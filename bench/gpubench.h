// bench/gpubench.h - what the GPU benchmark programs here share: a
// millisecond clock, a CUDA call that exits on failure, the harness's
// memory fence, a table row.
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

/* the harness's fence: all but keep bytes of the device held, in halving
 * pieces (fixed: in pieces of that size) into piece[0 .. max); the pieces taken */
static int
fence(size_t keep, size_t fixed, void **piece, int max)
{
	size_t fr, tot;
	int n = 0;

	while (n < max && cudaMemGetInfo(&fr, &tot) == cudaSuccess && fr > keep + (64u << 20)) {
		size_t want = fixed ? fixed : fr - keep;
		if (want > fr - keep)
			want = fr - keep;
		while (want > (32u << 20) && cudaMalloc(&piece[n], want) != cudaSuccess) {
			cudaGetLastError();
			want /= 2;
		}
		if (want <= (32u << 20))
			break;
		n++;
	}
	return n;
}

static void
row(const char *what, double v)
{
	printf("%-64s %10.2f ms\n", what, v);
	fflush(stdout);
}

#endif

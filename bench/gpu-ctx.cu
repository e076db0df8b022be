// bench/gpu-ctx.cu - whether two processes can make their CUDA
// contexts at once in the time of one: bench's oracle harness makes its
// context after the candidate's timed calls (0.13-0.16 s of GPU time per
// candidate on an H200); starting it beside the candidate's harness pays
// only if the driver makes two contexts side by side. Forks N children at
// once, each timing cudaFree(0) (the runtime's context) and a 256 MiB
// cudaMalloc, and prints the wall time of all of them against one alone.
// Not a timed test: on a GPU host,
//
//   nvcc -arch=sm_90 -O2 -o gpu-ctx bench/gpu-ctx.cu && ./gpu-ctx
#include <cuda_runtime.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* n children at once; the wall time until the last has its context and memory */
static double
together(int n)
{
	double t0 = now();
	fflush(stdout); /* nothing buffered for the children to print again */
	for (int k = 0; k < n; k++)
		if (fork() == 0) {
			void *p;
			double t1 = now();
			if (cudaFree(0) != cudaSuccess || cudaMalloc(&p, 256u << 20) != cudaSuccess)
				_exit(1);
			printf("  child %d of %d: context and 256 MiB in %.1f ms\n", k + 1, n, (now() - t1) * 1e3);
			fflush(stdout);
			_exit(0);
		}
	int st, bad = 0;
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	if (bad)
		printf("  a child failed\n");
	return (now() - t0) * 1e3;
}

int
main(void)
{
	for (int rep = 0; rep < 3; rep++)
		for (int n = 1; n <= 2; n++)
			printf("%d process(es) at once: %.1f ms until all are ready and have ended\n", n, together(n));
	return 0;
}

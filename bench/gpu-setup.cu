// bench/gpu-setup.cu - what the harness's per-case setup costs on
// this GPU, primitive by primitive: the fence (device memory held so that
// every case sees the same free memory) taken in halving pieces as the
// harness takes it, or in 1 GiB pieces, and given back; buffers of a
// case's sizes; pinning (cudaHostRegister) of shared memory the size of a
// case's outputs, first touch included; copies to pinned and pageable
// memory; the fence as the harness takes it (pieces of a 128th of the
// device) given back after kernels ran (asking the free memory before
// each piece, then not), and the same fence as physical allocations with
// no mapping (cuMemCreate), taken and released; that fence given back
// while another process makes its CUDA context (as bench's oracle makes
// its own during the candidate's calls), and beside one it made before.
// Prints a table of milliseconds. Not a timed test: on a GPU host,
//
//   nvcc -arch=sm_90 -O2 -o gpu-setup bench/gpu-setup.cu -lcuda && ./gpu-setup
#include "gpubench.h"
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAXP = 512 };
static void *piece[MAXP];
static CUmemGenericAllocationHandle handle[MAXP];

__global__ void
touch(float *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = p[i] * 2.0f + 1.0f;
}

/* the fence as physical memory alone (no address, no mapping), in
 * pieces of size until keep bytes are free; the pieces taken */
static int
physfence(size_t keep, size_t size)
{
	CUmemAllocationProp prop;
	size_t fr, tot, gran;
	int n = 0, dev;

	CK(cudaGetDevice(&dev));
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	if (cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS)
		return -1;
	size = (size + gran - 1) / gran * gran;
	while (n < MAXP && cudaMemGetInfo(&fr, &tot) == cudaSuccess && fr > keep + size &&
	       cuMemCreate(&handle[n], size, &prop, 0) == CUDA_SUCCESS)
		n++;
	return n;
}

static void
unfence(int n)
{
	while (n-- > 0)
		CK(cudaFree(piece[n]));
}

/* another process, this program with "ctx": at a byte on its stdin it
 * makes its CUDA context as the oracle's harness does at "ctx" (cuInit
 * and the context both), writes when it began and ended (ms(), the same
 * clock here) to its stdout, and ends at the end of its stdin. p->go and p->done: its pipes */
struct other {
	pid_t pid;
	int go, done;
	double from, to; /* its context's making, by ms() */
};

static int
ctxchild(void)
{
	char c;
	double t[2];

	if (read(0, &c, 1) != 1)
		return 1;
	t[0] = ms();
	CK(cudaFree(0));
	t[1] = ms();
	if (write(1, t, sizeof t) != (ssize_t)sizeof t)
		return 1;
	while (read(0, &c, 1) > 0) /* until otherend closes it */
		;
	return 0;
}

/* says, in its row's place, that another process failed; -1 */
static int
otherfailed(void)
{
	printf("# another process's CUDA context failed\n");
	return -1;
}

/* started and loaded, then told to go; -1 where it could not be (said) */
static int
otherstart(struct other *p)
{
	int in[2], out[2];

	p->pid = -1;
	p->go = p->done = -1;
	if (pipe2(in, O_CLOEXEC) < 0)
		return otherfailed();
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return otherfailed();
	}
	p->go = in[1];
	p->done = out[0];
	if ((p->pid = fork()) < 0) {
		close(in[0]);
		close(out[1]);
		return otherfailed();
	}
	if (p->pid == 0) { /* 0 and 1 alone survive the exec */
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl("/proc/self/exe", "gpu-setup", "ctx", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	usleep(100000); /* exec'd and its libraries loaded */
	return write(p->go, "g", 1) == 1 ? 0 : otherfailed();
}

/* its context made: 0 (p->from, p->to say when), -1 it failed (said) */
static int
otherctx(struct other *p)
{
	double t[2];

	if (read(p->done, t, sizeof t) != (ssize_t)sizeof t)
		return otherfailed();
	p->from = t[0];
	p->to = t[1];
	return 0;
}

static void
otherend(struct other *p)
{
	if (p->go >= 0) /* the end of its stdin ends it */
		close(p->go);
	if (p->done >= 0)
		close(p->done);
	if (p->pid > 0)
		waitpid(p->pid, NULL, 0);
}

int
main(int argc, char **argv)
{
	double t;
	size_t fr, tot, sizes[] = { (size_t)4 << 20, (size_t)256 << 20, (size_t)1 << 30, (size_t)4 << 30 };
	char what[128];
	int n;

	if (argc > 1 && !strcmp(argv[1], "ctx"))
		return ctxchild();
	signal(SIGPIPE, SIG_IGN); /* another process that ended: its pipe's write fails */
	setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short keeps its rows */
	t = ms();
	CK(cudaFree(0));
	row("CUDA context (cudaFree(0))", ms() - t);
	CK(cudaMemGetInfo(&fr, &tot));
	printf("# free %.1f GiB of %.1f GiB\n", fr / 1073741824.0, tot / 1073741824.0);
	t = ms();
	for (int i = 0; i < 100; i++)
		CK(cudaMemGetInfo(&fr, &tot));
	row("cudaMemGetInfo, one call", (ms() - t) / 100);

	for (int rep = 0; rep < 2; rep++) {
		t = ms();
		n = fence((size_t)8 << 30, 0, piece, MAXP);
		snprintf(what, sizeof what, "fence to 8 GiB free, halving pieces (%d), take %d", n, rep + 1);
		row(what, ms() - t);
		t = ms();
		unfence(n);
		row("  ... and give it back", ms() - t);
	}
	t = ms();
	n = fence((size_t)8 << 30, (size_t)1 << 30, piece, MAXP);
	snprintf(what, sizeof what, "fence to 8 GiB free, 1 GiB pieces (%d)", n);
	row(what, ms() - t);
	t = ms();
	CK(cudaFree(piece[n - 1]));
	CK(cudaFree(piece[n - 2]));
	piece[n - 2] = piece[n - 1] = NULL;
	row("  give back 2 pieces (a larger case)", ms() - t);
	t = ms();
	CK(cudaMalloc(&piece[n - 2], (size_t)1 << 30));
	CK(cudaMalloc(&piece[n - 1], (size_t)1 << 30));
	row("  take 2 pieces again (a smaller case)", ms() - t);
	t = ms();
	unfence(n);
	row("  give all back", ms() - t);

	/* the harness's fence (tot / 128 a piece, 4 GiB left), after kernels
	 * ran beside it; given back all at once, as at the export */
	{
		size_t big = (size_t)1 << 30;
		float *work;
		size_t piecesz = ((tot / 128) + ((size_t)64 << 20) - 1) & ~(((size_t)64 << 20) - 1);
		CK(cudaMalloc(&work, big));
		for (int rep = 0; rep < 2; rep++) {
			t = ms();
			n = fence((size_t)4 << 30, piecesz, piece, MAXP);
			snprintf(what, sizeof what, "fence to 4 GiB free, pieces of %zu MiB (%d)", piecesz >> 20, n);
			row(what, ms() - t);
			for (int k = 0; k < 20; k++)
				touch<<<1024, 256>>>(work, big / 4);
			CK(cudaDeviceSynchronize());
			t = ms();
			if (rep == 0) { /* the free memory asked before each piece */
				for (int k = n - 1; k >= 0; k--) {
					CK(cudaMemGetInfo(&fr, &tot));
					CK(cudaFree(piece[k]));
				}
				row("  kernels ran; give it all back, cudaMemGetInfo before each piece", ms() - t);
			} else {
				unfence(n);
				row("  kernels ran; give it all back", ms() - t);
			}
		}
		/* the export's question: another process's context against the release */
		{
			struct other o;
			if (otherstart(&o) == 0 && otherctx(&o) == 0)
				row("another process's CUDA context (cuInit too), made alone", o.to - o.from);
			otherend(&o);
		}
		/* -1: its context made before; else the release starts that many ms after it began */
		static const int delays[] = { -1, 0, 50, 100, 150, 200, 250 };
		for (size_t d = 0; d < sizeof delays / sizeof delays[0]; d++) {
			struct other o;
			double r0, r1;
			n = fence((size_t)4 << 30, piecesz, piece, MAXP);
			for (int k = 0; k < 20; k++)
				touch<<<1024, 256>>>(work, big / 4);
			CK(cudaDeviceSynchronize());
			if (otherstart(&o) < 0 || (delays[d] < 0 && otherctx(&o) < 0)) {
				otherend(&o);
				unfence(n);
				break;
			}
			if (delays[d] > 0)
				usleep(delays[d] * 1000);
			r0 = ms();
			unfence(n);
			r1 = ms();
			if (delays[d] < 0) {
				row("  give the fence back beside another process's idle context", r1 - r0);
			} else if (otherctx(&o) == 0) {
				/* when the release ran, from the start of the other's context */
				snprintf(what, sizeof what, "  give it back, another's context being made (%.0f-%.0f of its %.0f ms)",
				         r0 - o.from, r1 - o.from, o.to - o.from);
				row(what, r1 - r0);
			}
			otherend(&o);
		}
		t = ms();
		n = physfence((size_t)4 << 30, piecesz);
		snprintf(what, sizeof what, "fence as physical allocations, no mapping (%d)", n);
		row(what, ms() - t);
		for (int k = 0; k < 20; k++)
			touch<<<1024, 256>>>(work, big / 4);
		CK(cudaDeviceSynchronize());
		t = ms();
		while (n-- > 0)
			cuMemRelease(handle[n]);
		row("  kernels ran; release them all", ms() - t);
		CK(cudaMemGetInfo(&fr, &tot));
		printf("# free %.1f GiB after\n", fr / 1073741824.0);
		CK(cudaFree(work));
	}

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		size_t b = sizes[i];
		void *d, *h;
		double mb = b / 1048576.0;
		int fd;
		t = ms();
		CK(cudaMalloc(&d, b));
		snprintf(what, sizeof what, "cudaMalloc %.0f MiB", mb);
		row(what, ms() - t);
		t = ms();
		CK(cudaMemset(d, 0, b));
		CK(cudaDeviceSynchronize());
		snprintf(what, sizeof what, "cudaMemset %.0f MiB", mb);
		row(what, ms() - t);
		fd = memfd_create("bench", 0);
		if (fd < 0 || ftruncate(fd, (off_t)b) < 0)
			exit(1);
		h = mmap(NULL, b, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		t = ms();
		CK(cudaHostRegister(h, b, cudaHostRegisterDefault));
		snprintf(what, sizeof what, "cudaHostRegister %.0f MiB of fresh shared memory", mb);
		row(what, ms() - t);
		t = ms();
		CK(cudaMemcpy(h, d, b, cudaMemcpyDeviceToHost));
		snprintf(what, sizeof what, "  copy %.0f MiB device to pinned", mb);
		row(what, ms() - t);
		t = ms();
		CK(cudaHostUnregister(h));
		row("  cudaHostUnregister", ms() - t);
		t = ms();
		CK(cudaHostRegister(h, b, cudaHostRegisterDefault));
		row("  cudaHostRegister again (pages touched)", ms() - t);
		CK(cudaHostUnregister(h));
		t = ms();
		CK(cudaMemcpy(h, d, b, cudaMemcpyDeviceToHost));
		snprintf(what, sizeof what, "  copy %.0f MiB device to pageable shared memory", mb);
		row(what, ms() - t);
		munmap(h, b);
		close(fd);
		t = ms();
		CK(cudaFree(d));
		snprintf(what, sizeof what, "cudaFree %.0f MiB", mb);
		row(what, ms() - t);
	}
	return 0;
}

// bench/gpu-shm.cu - what moving a case's kept outputs through shared
// memory costs on this GPU host: a memfd's pages made by one mapping (the
// parent's), then copied into from the device through another (the
// harness's: its page tables start empty), cold, populated (MAP_POPULATE)
// or pinned (cudaHostRegister); with 4 KiB pages and with transparent huge
// pages asked for (MADV_HUGEPAGE). Prints the host's THP settings and a
// table of milliseconds. Not a timed test: on a GPU host,
//
//   nvcc -arch=sm_90 -O2 -o gpu-shm bench/gpu-shm.cu && ./gpu-shm [GiB]
#include "gpubench.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void
show(const char *path)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof buf, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	printf("# %s: %s\n", path, f ? buf : "(absent)");
}

static unsigned char *
mapit(int fd, size_t n, int flags)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | flags, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return (unsigned char *)p;
}

/* a step timed, and its row: "[page size] label" */
#define TIMED(label, stmt) do { double t_ = ms(); stmt; \
	snprintf(what, sizeof what, "[%s] %s", tag, label); row(what, ms() - t_); } while (0)

static void
trial(size_t n, void *dev, int huge)
{
	char what[160];
	const char *tag = huge ? "huge pages asked" : "4 KiB pages";
	int fd = memfd_create("gpu-shm", MFD_CLOEXEC);
	unsigned char *parent, *h;

	if (fd < 0 || ftruncate(fd, (off_t)n) < 0) {
		perror("memfd");
		exit(1);
	}
	parent = mapit(fd, n, 0);
	if (huge && madvise(parent, n, MADV_HUGEPAGE) < 0)
		perror("madvise");
	TIMED("parent makes the pages (memset, one thread)", memset(parent, 0, n));

	h = mapit(fd, n, 0);
	TIMED("copy device -> a fresh mapping (cold page tables)", CK(cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost)));
	TIMED("  again, the same mapping (warm)", CK(cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost)));
	munmap(h, n);

	TIMED("a fresh mapping with MAP_POPULATE", h = mapit(fd, n, MAP_POPULATE));
	TIMED("  copy device -> it", CK(cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost)));
	TIMED("  copy it -> device", CK(cudaMemcpy(dev, h, n, cudaMemcpyHostToDevice)));
	munmap(h, n);

	h = mapit(fd, n, 0);
	TIMED("cudaHostRegister a fresh mapping", CK(cudaHostRegister(h, n, cudaHostRegisterDefault)));
	TIMED("  copy device -> it (pinned)", CK(cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost)));
	TIMED("  cudaHostUnregister", CK(cudaHostUnregister(h)));
	munmap(h, n);
	munmap(parent, n);
	close(fd);
}

int
main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atof(argv[1]) : 4) * ((size_t)1 << 30);
	void *dev;
	double t = ms();

	show("/sys/kernel/mm/transparent_hugepage/enabled");
	show("/sys/kernel/mm/transparent_hugepage/shmem_enabled");
	show("/proc/sys/vm/nr_hugepages");
	CK(cudaFree(0));
	row("CUDA context", ms() - t);
	CK(cudaMalloc(&dev, n));
	CK(cudaMemset(dev, 1, n));
	CK(cudaDeviceSynchronize());
	printf("# %.1f GiB\n", n / 1073741824.0);
	trial(n, dev, 0);
	trial(n, dev, 1);
	return 0;
}

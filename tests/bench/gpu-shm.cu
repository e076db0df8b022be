// tests/bench/gpu-shm.cu - what moving a case's kept outputs through shared
// memory costs on this GPU host: a memfd's pages made by one mapping (the
// parent's), then copied into from the device through another (the
// harness's: its page tables start empty), cold, populated (MAP_POPULATE)
// or pinned (cudaHostRegister); with 4 KiB pages and with transparent huge
// pages asked for (MADV_HUGEPAGE). Prints the host's THP settings and a
// table of milliseconds. Not a timed test: on a GPU host,
//
//   nvcc -arch=sm_90 -O2 -o gpu-shm tests/bench/gpu-shm.cu && ./gpu-shm [GiB]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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
	printf("%-64s %9.1f ms\n", what, v);
}

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

static void
trial(size_t n, void *dev, int huge)
{
	char what[160];
	const char *tag = huge ? "huge pages asked" : "4 KiB pages";
	int fd = memfd_create("gpu-shm", MFD_CLOEXEC);
	unsigned char *parent, *h;
	double t;

	if (fd < 0 || ftruncate(fd, (off_t)n) < 0) {
		perror("memfd");
		exit(1);
	}
	parent = mapit(fd, n, 0);
	if (huge && madvise(parent, n, MADV_HUGEPAGE) < 0)
		perror("madvise");
	t = ms();
	memset(parent, 0, n);
	snprintf(what, sizeof what, "[%s] parent makes the pages (memset, one thread)", tag);
	row(what, ms() - t);

	h = mapit(fd, n, 0);
	t = ms();
	CK(cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost));
	snprintf(what, sizeof what, "[%s] copy device -> a fresh mapping (cold page tables)", tag);
	row(what, ms() - t);
	t = ms();
	CK(cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost));
	snprintf(what, sizeof what, "[%s]   again, the same mapping (warm)", tag);
	row(what, ms() - t);
	munmap(h, n);

	t = ms();
	h = mapit(fd, n, MAP_POPULATE);
	snprintf(what, sizeof what, "[%s] a fresh mapping with MAP_POPULATE", tag);
	row(what, ms() - t);
	t = ms();
	CK(cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost));
	snprintf(what, sizeof what, "[%s]   copy device -> it", tag);
	row(what, ms() - t);
	t = ms();
	CK(cudaMemcpy(dev, h, n, cudaMemcpyHostToDevice));
	snprintf(what, sizeof what, "[%s]   copy it -> device", tag);
	row(what, ms() - t);
	munmap(h, n);

	h = mapit(fd, n, 0);
	t = ms();
	CK(cudaHostRegister(h, n, cudaHostRegisterDefault));
	snprintf(what, sizeof what, "[%s] cudaHostRegister a fresh mapping", tag);
	row(what, ms() - t);
	t = ms();
	CK(cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost));
	snprintf(what, sizeof what, "[%s]   copy device -> it (pinned)", tag);
	row(what, ms() - t);
	t = ms();
	CK(cudaHostUnregister(h));
	snprintf(what, sizeof what, "[%s]   cudaHostUnregister", tag);
	row(what, ms() - t);
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

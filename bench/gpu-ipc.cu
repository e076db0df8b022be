// bench/gpu-ipc.cu - can a second process read a first one's device
// memory through CUDA IPC when each is jailed as the harness is (PID, IPC,
// mount and network namespaces of its own, a private /dev/shm, uid 65534),
// and what does it cost against the host round trip bench uses today (the
// kept copies fetched into shared memory both harnesses pin, then copied
// back to the oracle's device)? An exporter (uid 65534) fills N GiB on the
// device and hands its cudaIpcMemHandle over a pipe; an importer per jail
// variant opens it, sums it on its device and compares the sum with the
// exporter's. Prints a table of milliseconds. Not a timed test: as root on
// a GPU host,
//
//   nvcc -arch=sm_90 -O2 -o gpu-ipc bench/gpu-ipc.cu && ./gpu-ipc [GiB]
#include "gpubench.h"
#include "ipcsum.h"
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

enum { JAIL_UID = 65534 };

static void
dropuid(void)
{
	if (setgid(JAIL_UID) < 0 || setuid(JAIL_UID) < 0) {
		perror("setuid");
		exit(1);
	}
}

/* the exporter: fills n words, sends its handle and their sum on fd w, waits for a byte on fd r */
static void
exporter(size_t n, int w, int r)
{
	uint64_t *dev;
	cudaIpcMemHandle_t hd;
	unsigned long long s;
	char c;

	dropuid();
	CK(cudaMalloc(&dev, n * 8));
	fill<<<1024, 512>>>(dev, n);
	CK(cudaDeviceSynchronize());
	s = devsum(dev, n);
	CK(cudaIpcGetMemHandle(&hd, dev));
	if (write(w, &hd, sizeof hd) != (ssize_t)sizeof hd || write(w, &s, sizeof s) != (ssize_t)sizeof s)
		exit(1);
	if (read(r, &c, 1) < 0)
		exit(1);
	exit(0);
}

/* one importer, in a jail of flags: its rows; exit 0 when the sums agree */
static void
importer(const char *name, int flags, int shm, cudaIpcMemHandle_t hd, unsigned long long want, size_t n)
{
	char what[160];
	double t;
	void *p;
	unsigned long long got;
	cudaError_t e;

	if (flags && unshare(flags) < 0) {
		perror("unshare");
		exit(2);
	}
	if (shm && (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	            mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=64m") < 0)) {
		perror("mount");
		exit(2);
	}
	if (flags & CLONE_NEWPID) { /* the next child is the namespace's first process */
		pid_t c = fork();
		int st;
		if (c != 0) {
			waitpid(c, &st, 0);
			exit(WIFEXITED(st) ? WEXITSTATUS(st) : 3);
		}
		/* its own /proc, as the sandbox mounts one (the driver reads /proc/self) */
		if ((flags & CLONE_NEWNS) && (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		                              mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)) {
			perror("mount /proc");
			exit(2);
		}
	}
	dropuid();
	t = ms();
	CK(cudaFree(0));
	snprintf(what, sizeof what, "[%s] CUDA context", name);
	row(what, ms() - t);
	t = ms();
	e = cudaIpcOpenMemHandle(&p, hd, cudaIpcMemLazyEnablePeerAccess);
	snprintf(what, sizeof what, "[%s] cudaIpcOpenMemHandle%s%s", name, e ? ": " : "", e ? cudaGetErrorString(e) : "");
	row(what, ms() - t);
	if (e)
		exit(1);
	t = ms();
	got = devsum((const uint64_t *)p, n);
	snprintf(what, sizeof what, "[%s] sum of the exporter's memory on the device (%s)", name,
	         got == want ? "agrees" : "DIFFERS");
	row(what, ms() - t);
	t = ms();
	CK(cudaIpcCloseMemHandle(p));
	snprintf(what, sizeof what, "[%s] cudaIpcCloseMemHandle", name);
	row(what, ms() - t);
	exit(got == want ? 0 : 1);
}

/* today's way, for comparison: device -> pinned shared memory -> pinned in another process -> its device */
static void
hostway(size_t n)
{
	uint64_t *dev, *dev2;
	int fd = memfd_create("gpu-ipc", MFD_CLOEXEC);
	void *a, *b;
	double t;

	if (fd < 0 || ftruncate(fd, (off_t)(n * 8)) < 0)
		exit(1);
	a = mmap(NULL, n * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	b = mmap(NULL, n * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	memset(a, 0, n * 8);
	CK(cudaMalloc(&dev, n * 8));
	CK(cudaMalloc(&dev2, n * 8));
	fill<<<1024, 512>>>(dev, n);
	CK(cudaDeviceSynchronize());
	t = ms();
	CK(cudaHostRegister(a, n * 8, cudaHostRegisterDefault));
	CK(cudaHostRegister(b, n * 8, cudaHostRegisterDefault));
	row("[host] pin the shared memory twice (each harness pins it)", ms() - t);
	t = ms();
	CK(cudaMemcpy(a, dev, n * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(dev2, b, n * 8, cudaMemcpyHostToDevice));
	row("[host] device -> shared memory -> device", ms() - t);
	CK(cudaHostUnregister(a));
	CK(cudaHostUnregister(b));
	CK(cudaFree(dev));
	CK(cudaFree(dev2));
}

int
main(int argc, char **argv)
{
	static const struct { const char *name; int flags, shm; } jails[] = {
		{ "same namespaces", 0, 0 },
		{ "pid, the host's /proc", CLONE_NEWPID, 0 },
		{ "pid+mnt, its own /proc", CLONE_NEWPID | CLONE_NEWNS, 0 },
		{ "pid+ipc+mnt, its own /proc", CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNS, 0 },
		{ "pid+ipc+mnt+net, its own /proc, private /dev/shm", CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWNET, 1 },
	};
	size_t n = (size_t)((argc > 1 ? atof(argv[1]) : 1) * 1073741824.0) / 8;
	int up[2], down[2], ok = 0;
	unsigned long long want;
	cudaIpcMemHandle_t hd;
	pid_t ex;

	printf("# %.2f GiB, exporter and importers uid %d\n", n * 8 / 1073741824.0, JAIL_UID);
	fflush(stdout); /* before the forks: each child would print it again */
	if (pipe(up) < 0 || pipe(down) < 0)
		return 1;
	if ((ex = fork()) == 0) {
		close(up[0]), close(down[1]);
		exporter(n, up[1], down[0]);
	}
	close(up[1]), close(down[0]);
	if (read(up[0], &hd, sizeof hd) != (ssize_t)sizeof hd || read(up[0], &want, sizeof want) != (ssize_t)sizeof want) {
		fprintf(stderr, "gpu-ipc: the exporter failed\n");
		return 1;
	}
	for (size_t k = 0; k < sizeof jails / sizeof *jails; k++) {
		pid_t c = fork();
		int st;
		if (c == 0)
			importer(jails[k].name, jails[k].flags, jails[k].shm, hd, want, n);
		waitpid(c, &st, 0);
		printf("# %s: %s\n", jails[k].name, WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "works" : "FAILS");
		fflush(stdout);
		ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	if (write(down[1], "q", 1) < 0)
		return 1;
	waitpid(ex, NULL, 0);
	if (fork() == 0) { /* CUDA in a child: this process never made a context, so its children can */
		hostway(n);
		exit(0);
	}
	wait(NULL);
	printf("# CUDA IPC worked in %d of %zu jail variants\n", ok, sizeof jails / sizeof *jails);
	return 0;
}

// bench/gpu-ipc-jail.cu - can the oracle's harness read the candidate's
// device memory when BOTH are jailed as the harness is (PID, IPC, mount and
// network namespaces of their own, their own /proc, a private /dev/shm, uid
// 65534), the exporter also locked down as the candidate's harness is
// (src/runtime/lockdown.c)? gpu-ipc.cu jailed only the importer. Two ways:
// the runtime's legacy handle (cudaIpcGetMemHandle: the bytes name the
// exporter), and a driver allocation (cuMemCreate) exported as a POSIX file
// descriptor, which travels over a Unix socket (SCM_RIGHTS) as the parent
// would pass it on. Prints what each step gave and took. Not a timed test:
// as root on a GPU host,
//
//   nvcc -arch=sm_90 -O2 -o gpu-ipc-jail bench/gpu-ipc-jail.cu src/runtime/lockdown.c -lcuda
//   ./gpu-ipc-jail [GiB]
#include "gpubench.h"
#include "ipcsum.h"
#include <cuda.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include "../src/runtime/lockdown.h"
}

enum { JAIL_UID = 65534 };

#define DK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_ = "?"; cuGetErrorString(r_, &s_); \
	fprintf(stderr, "%s: %s\n", #x, s_); exit(1); } } while (0)

/* this process into a jail like the harness's: it returns in the jail's
 * first process (the caller's parent waits for it and exits with it) */
static void
jail(void)
{
	if (unshare(CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWNET) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=64m") < 0) {
		perror("jail");
		exit(2);
	}
	pid_t c = fork();
	if (c != 0) {
		int st;
		waitpid(c, &st, 0);
		exit(WIFEXITED(st) ? WEXITSTATUS(st) : 3);
	}
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		perror("mount /proc");
		exit(2);
	}
	if (setgid(JAIL_UID) < 0 || setuid(JAIL_UID) < 0) {
		perror("setuid");
		exit(2);
	}
}

struct msg {
	cudaIpcMemHandle_t legacy;
	int legacyerr, fderr;
	size_t bytes;
	unsigned long long want;
};

/* the exporter: n words in a cudaMalloc block and in a cuMemCreate one,
 * locked down (or not) before either is exported; both sent on sock */
static void
exporter(size_t n, int locked, int sock)
{
	CUmemAllocationProp prop;
	CUmemAccessDesc acc;
	CUmemGenericAllocationHandle h;
	CUdeviceptr vp;
	size_t gran = 0, bytes;
	uint64_t *dev;
	struct msg m;
	int fd = -1;
	char lock[256] = "not locked down", c;
	double t;

	jail();
	memset(&m, 0, sizeof m);
	CK(cudaFree(0));
	CK(cudaMalloc(&dev, n * 8));
	fill<<<1024, 512>>>(dev, n);
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	DK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	bytes = (n * 8 + gran - 1) / gran * gran;
	t = ms();
	DK(cuMemCreate(&h, bytes, &prop, 0));
	DK(cuMemAddressReserve(&vp, bytes, 0, 0, 0));
	DK(cuMemMap(vp, bytes, 0, h, 0));
	acc.location = prop.location;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	DK(cuMemSetAccess(vp, bytes, &acc, 1));
	row("[exporter] cuMemCreate + reserve + map + access", ms() - t);
	CK(cudaMemcpy((void *)vp, dev, n * 8, cudaMemcpyDeviceToDevice));
	CK(cudaDeviceSynchronize());
	m.want = devsum(dev, n);
	m.bytes = bytes;
	if (locked)
		lockdown(lock, sizeof lock);
	printf("# exporter: lockdown %s\n", lock);
	t = ms();
	m.legacyerr = (int)cudaIpcGetMemHandle(&m.legacy, dev);
	row(m.legacyerr ? "[exporter] cudaIpcGetMemHandle FAILED" : "[exporter] cudaIpcGetMemHandle", ms() - t);
	t = ms();
	m.fderr = (int)cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
	row(m.fderr ? "[exporter] cuMemExportToShareableHandle (fd) FAILED" : "[exporter] cuMemExportToShareableHandle (fd)",
	    ms() - t);
	{
		struct iovec io = { &m, sizeof m };
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct msghdr mh;
		memset(&mh, 0, sizeof mh);
		memset(cbuf, 0, sizeof cbuf);
		mh.msg_iov = &io;
		mh.msg_iovlen = 1;
		if (!m.fderr) {
			mh.msg_control = cbuf;
			mh.msg_controllen = sizeof cbuf;
			struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &fd, sizeof fd);
		}
		if (sendmsg(sock, &mh, 0) != (ssize_t)sizeof m) {
			perror("[exporter] sendmsg");
			exit(1);
		}
	}
	if (read(sock, &c, 1) < 0) /* until the importer is done */
		exit(1);
	exit(0);
}

/* the importer: opens both, sums them on its device */
static void
importer(size_t n, int sock)
{
	struct msg m;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &m, sizeof m };
	struct msghdr mh;
	int fd = -1, ok = 1;
	double t;

	jail();
	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &io;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof cbuf;
	if (recvmsg(sock, &mh, 0) != (ssize_t)sizeof m) {
		perror("[importer] recvmsg");
		exit(1);
	}
	if (CMSG_FIRSTHDR(&mh) && CMSG_FIRSTHDR(&mh)->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof fd);
	CK(cudaFree(0));
	if (!m.legacyerr) {
		void *p;
		t = ms();
		cudaError_t e = cudaIpcOpenMemHandle(&p, m.legacy, cudaIpcMemLazyEnablePeerAccess);
		printf("# [importer] legacy handle: %s\n", e ? cudaGetErrorString(e) : "opened");
		row("[importer] cudaIpcOpenMemHandle", ms() - t);
		if (!e)
			printf("# [importer] legacy: the sum %s\n", devsum((const uint64_t *)p, n) == m.want ? "agrees" : "DIFFERS");
		ok &= !e;
	}
	if (fd >= 0) {
		CUmemGenericAllocationHandle h;
		CUdeviceptr vp;
		CUmemAccessDesc acc;
		t = ms();
		CUresult r = cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
		if (r == CUDA_SUCCESS) {
			DK(cuMemAddressReserve(&vp, m.bytes, 0, 0, 0));
			DK(cuMemMap(vp, m.bytes, 0, h, 0));
			acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
			acc.location.id = 0;
			acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
			DK(cuMemSetAccess(vp, m.bytes, &acc, 1));
			row("[importer] import fd + reserve + map + access", ms() - t);
			t = ms();
			unsigned long long got = devsum((const uint64_t *)vp, n);
			printf("# [importer] fd: the sum %s\n", got == m.want ? "agrees" : "DIFFERS");
			row("[importer] sum of the exporter's memory on the device", ms() - t);
			ok &= got == m.want;
		} else {
			const char *s = "?";
			cuGetErrorString(r, &s);
			printf("# [importer] fd import FAILED: %s\n", s);
			ok = 0;
		}
	} else {
		ok = 0;
	}
	if (write(sock, "q", 1) < 0)
		exit(1);
	exit(ok ? 0 : 1);
}

int
main(int argc, char **argv)
{
	size_t n = (size_t)((argc > 1 ? atof(argv[1]) : 1) * 1073741824.0) / 8;

	for (int locked = 0; locked < 2; locked++) {
		int sv[2], st;
		pid_t ex, im;
		printf("# %.2f GiB; exporter %s, both jailed (pid, ipc, mnt, net; own /proc; uid %d)\n", n * 8 / 1073741824.0,
		       locked ? "locked down" : "not locked down", JAIL_UID);
		fflush(stdout);
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
			return 1;
		if ((ex = fork()) == 0) {
			close(sv[1]);
			exporter(n, locked, sv[0]);
		}
		if ((im = fork()) == 0) {
			close(sv[0]);
			importer(n, sv[1]);
		}
		close(sv[0]);
		close(sv[1]);
		waitpid(im, &st, 0);
		printf("# importer: %s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "both ways work" : "not every way works");
		waitpid(ex, NULL, 0);
		fflush(stdout);
	}
	return 0;
}

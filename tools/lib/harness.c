/*
 * harness.c - the program verify and bench run in the sandbox, once per
 * candidate: it loads the candidate's shared object and calls its entry
 * point on data the parent hands over. compile --harness builds it per
 * task variant with the generated call.c (callentry: the entry point's
 * exact signature).
 *
 * usage: harness CAND_SO ENTRY DEVICE
 *
 * The parent talks to it over three inherited descriptors: 3 commands
 * (text lines in), 4 replies (text lines out), 5 shared memory (a memfd
 * holding inputs going in and outputs coming back). It never receives
 * expected values or seeds. It is trusted code, but the candidate runs in
 * the same process, so the parent believes only what it can check.
 *
 * Commands:
 *   fence BYTES     take all device memory but BYTES, so that a runaway
 *                   allocation by the candidate fails
 *   call T {kind esize numel inoff outoff}*T S {v}*S C {v}*C
 *                   fresh buffers: inputs copied in, outputs poisoned with
 *                   0xFF bytes (NaN for floats), a 4 KiB canary after every
 *                   tensor; call; synchronize the device; every tensor
 *                   copied back to outoff. Reply: ok HOST_MS THREADS
 *                   | canary NAME_INDEX | cuda CODE MESSAGE
 *   bsetup K T {kind esize numel inoff_0 .. inoff_K-1}*T S {v}*S C {v}*C
 *                   K input sets kept pristine on the device, two argument
 *                   buffer groups, an L2 flush buffer of twice the L2
 *   bcall SET GROUP copy the set into the group's buffers, poison outputs,
 *                   flush L2, synchronize, then events around the call and
 *                   a device synchronize. Reply: t EVENT_MS HOST_MS
 *   bhold GROUP SLOT          keep a device copy of the group's outputs (a
 *                             check decided after the call, fetched later)
 *   bfetch GROUP {outoff}*T   copy the group's outputs back (out and inout)
 *   bfetchhold SLOT {outoff}*T  copy a held copy back
 *   quit
 * Kinds: 0 in, 1 out, 2 inout.
 *
 * The first reply is "ready NAME|CC|L2|SMS|DRIVER|RUNTIME", or "nodevice
 * MESSAGE", "loaderror MESSAGE", "noentry NAME".
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

void callentry(void *fn, void **ptrs, const int64_t *sizes, const double *scalars);

enum { MAXT = 32, MAXS = 32, CANARY = 4096, MAXSETS = 8, HOLDS = 8 };

static FILE *cmd, *rep;
static unsigned char *shm;
static size_t shmlen;

static void
reply(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(rep, fmt, ap);
	va_end(ap);
	fputc('\n', rep);
	fflush(rep);
}

static double
ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int
threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

struct tens {
	int kind;
	long long esize, numel, inoff[MAXSETS], outoff;
};

struct callargs {
	int nt, ns, nc;
	struct tens t[MAXT];
	int64_t sizes[MAXS];
	double scalars[MAXS];
};

static int
cudafail(cudaError_t e)
{
	if (e == cudaSuccess)
		return 0;
	reply("cuda %d %s", (int)e, cudaGetErrorString(e));
	return 1;
}

static int
inbounds(long long off, long long len)
{
	return off >= 0 && len >= 0 && (unsigned long long)off + (unsigned long long)len <= shmlen;
}

/* read "T {...}*T S {v}*S C {v}*C" with nsets input offsets per tensor */
static int
readargs(struct callargs *a, int nsets, int without)
{
	int i, j;

	memset(a, 0, sizeof *a);
	if (fscanf(cmd, "%d", &a->nt) != 1 || a->nt < 0 || a->nt > MAXT)
		return -1;
	for (i = 0; i < a->nt; i++) {
		struct tens *t = &a->t[i];
		if (fscanf(cmd, "%d %lld %lld", &t->kind, &t->esize, &t->numel) != 3)
			return -1;
		for (j = 0; j < nsets; j++)
			if (fscanf(cmd, "%lld", &t->inoff[j]) != 1 || !inbounds(t->inoff[j], t->numel * t->esize))
				return -1;
		if (without && (fscanf(cmd, "%lld", &t->outoff) != 1 || !inbounds(t->outoff, t->numel * t->esize)))
			return -1;
	}
	if (fscanf(cmd, "%d", &a->ns) != 1 || a->ns < 0 || a->ns > MAXS)
		return -1;
	for (i = 0; i < a->ns; i++) {
		long long v;
		if (fscanf(cmd, "%lld", &v) != 1)
			return -1;
		a->sizes[i] = v;
	}
	if (fscanf(cmd, "%d", &a->nc) != 1 || a->nc < 0 || a->nc > MAXS)
		return -1;
	for (i = 0; i < a->nc; i++)
		if (fscanf(cmd, "%lf", &a->scalars[i]) != 1)
			return -1;
	return 0;
}

static void *entry;

/* allocate one group of argument buffers, each with a canary after it */
static int
allocgroup(struct callargs *a, void **ptrs)
{
	int i;

	for (i = 0; i < a->nt; i++) {
		size_t bytes = (size_t)(a->t[i].numel * a->t[i].esize);
		if (cudafail(cudaMalloc(&ptrs[i], bytes + CANARY)) ||
		    cudafail(cudaMemset((char *)ptrs[i] + bytes, 0xA5, CANARY)))
			return -1;
	}
	return 0;
}

static int
canaryok(struct callargs *a, void **ptrs)
{
	static unsigned char c[CANARY];
	int i, k;

	for (i = 0; i < a->nt; i++) {
		size_t bytes = (size_t)(a->t[i].numel * a->t[i].esize);
		if (cudafail(cudaMemcpy(c, (char *)ptrs[i] + bytes, CANARY, cudaMemcpyDeviceToHost)))
			return -1;
		for (k = 0; k < CANARY; k++)
			if (c[k] != 0xA5) {
				reply("canary %d", i);
				return -1;
			}
	}
	return 0;
}

static void
docall(void)
{
	struct callargs a;
	void *ptrs[MAXT] = { 0 };
	int i, th0, th1;
	double t0, t1;

	if (readargs(&a, 1, 1) < 0) {
		reply("error bad call command");
		return;
	}
	if (allocgroup(&a, ptrs) < 0)
		goto out;
	for (i = 0; i < a.nt; i++) {
		size_t bytes = (size_t)(a.t[i].numel * a.t[i].esize);
		if (a.t[i].kind == 1 ? cudafail(cudaMemset(ptrs[i], 0xFF, bytes))
		                     : cudafail(cudaMemcpy(ptrs[i], shm + a.t[i].inoff[0], bytes, cudaMemcpyHostToDevice)))
			goto out;
	}
	if (cudafail(cudaDeviceSynchronize()))
		goto out;
	th0 = threads();
	t0 = ms();
	callentry(entry, ptrs, a.sizes, a.scalars);
	if (cudafail(cudaDeviceSynchronize()) || cudafail(cudaGetLastError()))
		goto out;
	t1 = ms();
	th1 = threads();
	for (i = 0; i < a.nt; i++) {
		size_t bytes = (size_t)(a.t[i].numel * a.t[i].esize);
		if (cudafail(cudaMemcpy(shm + a.t[i].outoff, ptrs[i], bytes, cudaMemcpyDeviceToHost)))
			goto out;
	}
	if (canaryok(&a, ptrs) < 0)
		goto out;
	reply("ok %.6f %d", t1 - t0, th1 - th0);
out:
	for (i = 0; i < a.nt; i++)
		if (ptrs[i])
			cudaFree(ptrs[i]);
}

/* bench state */
static struct callargs B;
static int nsets;
static void *pristine[MAXSETS][MAXT], *group[2][MAXT], *flush, *hold[HOLDS][MAXT];
static size_t flushbytes;
static cudaEvent_t ev0, ev1;

static void
bsetup(void)
{
	int i, j, l2 = 0;

	if (fscanf(cmd, "%d", &nsets) != 1 || nsets < 1 || nsets > MAXSETS || readargs(&B, nsets, 0) < 0) {
		reply("error bad bsetup command");
		return;
	}
	/* pinned, the shared memory moves at the link's full speed (the sets
	 * go up once, the outputs come back up to nine times); where it cannot
	 * be pinned it moves as pageable memory, and the error is cleared */
	if (shmlen && cudaHostRegister(shm, shmlen, cudaHostRegisterDefault) != cudaSuccess)
		cudaGetLastError();
	for (j = 0; j < nsets; j++)
		for (i = 0; i < B.nt; i++) {
			size_t bytes = (size_t)(B.t[i].numel * B.t[i].esize);
			if (B.t[i].kind == 1)
				continue;
			if (cudafail(cudaMalloc(&pristine[j][i], bytes)) ||
			    cudafail(cudaMemcpy(pristine[j][i], shm + B.t[i].inoff[j], bytes, cudaMemcpyHostToDevice)))
				return;
		}
	if (allocgroup(&B, group[0]) < 0 || allocgroup(&B, group[1]) < 0)
		return;
	cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
	flushbytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
	if (cudafail(cudaMalloc(&flush, flushbytes)) || cudafail(cudaEventCreate(&ev0)) ||
	    cudafail(cudaEventCreate(&ev1)))
		return;
	reply("ok %zu", flushbytes);
}

static void
bcall(void)
{
	int set, g, i;
	float evms = 0;
	double t0, t1;

	if (fscanf(cmd, "%d %d", &set, &g) != 2 || set < 0 || set >= nsets || g < 0 || g > 1) {
		reply("error bad bcall command");
		return;
	}
	for (i = 0; i < B.nt; i++) {
		size_t bytes = (size_t)(B.t[i].numel * B.t[i].esize);
		if (B.t[i].kind == 1 ? cudafail(cudaMemsetAsync(group[g][i], 0xFF, bytes, 0))
		                     : cudafail(cudaMemcpyAsync(group[g][i], pristine[set][i], bytes,
		                                                cudaMemcpyDeviceToDevice, 0)))
			return;
	}
	if (cudafail(cudaMemsetAsync(flush, set + g, flushbytes, 0)) || cudafail(cudaDeviceSynchronize()))
		return;
	t0 = ms();
	cudaEventRecord(ev0, 0);
	callentry(entry, group[g], B.sizes, B.scalars);
	cudaEventRecord(ev1, 0);
	if (cudafail(cudaDeviceSynchronize()) || cudafail(cudaGetLastError()))
		return;
	t1 = ms();
	if (cudafail(cudaEventElapsedTime(&evms, ev0, ev1)))
		return;
	reply("t %.6f %.6f", (double)evms, t1 - t0);
}

/* copy the outputs of group g (or of a held copy) back to the offsets given */
static void
fetchfrom(void **src, int checkcanary)
{
	int i;
	long long off;

	for (i = 0; i < B.nt; i++) {
		size_t bytes = (size_t)(B.t[i].numel * B.t[i].esize);
		if (fscanf(cmd, "%lld", &off) != 1 || !inbounds(off, (long long)bytes)) {
			reply("error bad fetch offsets");
			return;
		}
		if (B.t[i].kind != 0 && cudafail(cudaMemcpy(shm + off, src[i], bytes, cudaMemcpyDeviceToHost)))
			return;
	}
	if (checkcanary && canaryok(&B, src) < 0)
		return;
	reply("ok");
}

static void
bfetch(void)
{
	int g;

	if (fscanf(cmd, "%d", &g) != 1 || g < 0 || g > 1) {
		reply("error bad bfetch command");
		return;
	}
	fetchfrom(group[g], 1);
}

static void
bhold(void)
{
	int g, slot, i;

	if (fscanf(cmd, "%d %d", &g, &slot) != 2 || g < 0 || g > 1 || slot < 0 || slot >= HOLDS) {
		reply("error bad bhold command");
		return;
	}
	for (i = 0; i < B.nt; i++) {
		size_t bytes = (size_t)(B.t[i].numel * B.t[i].esize);
		if (B.t[i].kind == 0)
			continue;
		if ((!hold[slot][i] && cudafail(cudaMalloc(&hold[slot][i], bytes))) ||
		    cudafail(cudaMemcpy(hold[slot][i], group[g][i], bytes, cudaMemcpyDeviceToDevice)))
			return;
	}
	if (canaryok(&B, group[g]) < 0)
		return;
	reply("ok");
}

static void
bfetchhold(void)
{
	int slot;

	if (fscanf(cmd, "%d", &slot) != 1 || slot < 0 || slot >= HOLDS) {
		reply("error bad bfetchhold command");
		return;
	}
	fetchfrom(hold[slot], 0);
}

int
main(int argc, char **argv)
{
	struct stat st;
	struct cudaDeviceProp p;
	cudaError_t e;
	int n = 0, dev, drv = 0, rt = 0;
	void *so;
	char word[32];

	if (argc != 4)
		return 2;
	cmd = fdopen(3, "r");
	rep = fdopen(4, "w");
	if (!cmd || !rep || fstat(5, &st) < 0)
		return 2;
	shmlen = (size_t)st.st_size;
	shm = shmlen ? mmap(NULL, shmlen, PROT_READ | PROT_WRITE, MAP_SHARED, 5, 0) : NULL;
	if (shmlen && shm == MAP_FAILED)
		return 2;
	dev = atoi(argv[3]);
	if ((e = cudaGetDeviceCount(&n)) != cudaSuccess || n <= dev) {
		if (e != cudaSuccess)
			reply("nodevice no CUDA device: %s", cudaGetErrorString(e));
		else
			reply("nodevice no device %d (%d found)", dev, n);
		return 0;
	}
	if ((e = cudaSetDevice(dev)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess ||
	    (e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess) {
		reply("nodevice cannot create a CUDA context: %s", cudaGetErrorString(e));
		return 0;
	}
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		const char *e = dlerror();
		reply("loaderror %s", e ? e : "?");
		return 0;
	}
	entry = dlsym(so, argv[2]);
	if (!entry) {
		reply("noentry %s", argv[2]);
		return 0;
	}
	reply("ready %s|%d.%d|%d|%d|%d|%d", p.name, p.major, p.minor, p.l2CacheSize, p.multiProcessorCount,
	      drv, rt);
	while (fscanf(cmd, "%31s", word) == 1) {
		if (!strcmp(word, "quit"))
			break;
		else if (!strcmp(word, "call"))
			docall();
		else if (!strcmp(word, "bsetup"))
			bsetup();
		else if (!strcmp(word, "bcall"))
			bcall();
		else if (!strcmp(word, "bfetch"))
			bfetch();
		else if (!strcmp(word, "bhold"))
			bhold();
		else if (!strcmp(word, "bfetchhold"))
			bfetchhold();
		else if (!strcmp(word, "fence")) {
			long long keep;
			size_t fr = 0, tot = 0;
			void *f;
			if (fscanf(cmd, "%lld", &keep) != 1 || cudafail(cudaMemGetInfo(&fr, &tot)))
				continue;
			if ((long long)fr > keep && cudaMalloc(&f, (size_t)((long long)fr - keep)) == cudaSuccess)
				reply("ok %zu", (size_t)((long long)fr - keep));
			else
				reply("ok 0");
		} else {
			reply("error unknown command '%s'", word);
		}
	}
	return 0;
}

/*
 * harness.c - the harness's protocol loop, harnessmain(): the program
 * verify and bench run in the sandbox, once per candidate (or baseline,
 * the oracle). It loads the shared object, locks itself down, and calls
 * the entry point on inputs it draws on the device itself, at the
 * parent's commands (src/judge/proto.h speaks them). prepare --harness
 * links it per variant with the generated call.c, the device code and
 * the runtime guard; pyharness.py runs it with a Python entry point.
 * doc/verification.md (The harness protocol) gives the commands.
 *
 * usage: harness SO ENTRY DEVICE [open|open-gated|gated]
 *
 * open: trusted code (the baseline), no lockdown. open-gated: open, the
 * shared object loaded, then waiting for "go" before the device. gated:
 * a candidate's harness that initialises the CUDA driver at once (no
 * context, no device memory) and waits for "go" (the parent's GPU lease)
 * before the shared object. Either gated kind makes its CUDA context
 * before "go" where the parent says "ctx", else after it.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/draw.h"
#include "../lib/tensor.h"
#include "../lib/fdpass.h"
#include "device.h"
#include "guard.h"
#include "launches.h"
#include "lockdown.h"

#include "harness.h"

enum { MAXT = 1024, MAXS = 32, CANARY = 4096, MAXHOLDS = 16, MAXFENCE = 256 }; /* task.h: MAXARGS, MAXSIZEARGS */

static FILE *cmd, *rep;
static unsigned char *shm;
static size_t shmlen;
static void *entry;
static harnesscall call;
static void (*after)(void);
static char refused[64], refusedwhy[512]; /* harnessrefuse's, until the call's checks */

void
harnessrefuse(const char *rule, const char *detail)
{
	if (!refused[0]) {
		snprintf(refused, sizeof refused, "%s", rule);
		snprintf(refusedwhy, sizeof refusedwhy, "%s", detail);
	}
}

/* the entry point's caller refused something during the call (the rule named) */
static int
refusal(char *rule, size_t rcap, char *detail, size_t dcap)
{
	if (!refused[0])
		return 0;
	snprintf(rule, rcap, "%s", refused);
	snprintf(detail, dcap, "%s", refusedwhy);
	refused[0] = 0;
	return 1;
}

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

/* the launch cover, ms (device.h): dv_cover() for a C entry point and
 * for trusted code. A Python candidate's way to its launch (the
 * interpreter, Triton's launcher) takes longer, and longer on a slower
 * host, so its cover is 1.5 times the median way of its last PATHS calls
 * from the lockdown on (its first calls compile), kept between dv_cover()
 * and COVER_MAX_MS: no longer than it needs, as the GPU idles under it.
 * The way runs to the call's first launch, as the launch check saw it
 * (launches.h), else to the call's return */
enum { PATHS = 16 };
static const double COVER_MAX_MS = 1.0;
static struct {
	double ms;          /* the next call's */
	int adapt;          /* a Python candidate's judged calls: ms follows their ways */
	int n;              /* ways seen */
	double way[PATHS];  /* the last PATHS, a ring */
} cover;

static void
coverway(double way)
{
	double s[PATHS], m, v;
	int n, i, j;

	cover.way[cover.n++ % PATHS] = way;
	n = cover.n < PATHS ? cover.n : PATHS;
	for (i = 0; i < n; i++) { /* sorted into s */
		for (v = cover.way[i], j = i; j > 0 && s[j - 1] > v; j--)
			s[j] = s[j - 1];
		s[j] = v;
	}
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	cover.ms = 1.5 * m < dv_cover() ? dv_cover() : 1.5 * m > COVER_MAX_MS ? COVER_MAX_MS : 1.5 * m;
}

static int
fail(int e)
{
	if (e == 0)
		return 0;
	reply("cuda %d %s", e, dv_error(e));
	return 1;
}

/* the held copies another harness exported (the candidate's, to the
 * oracle's), copied into this harness's own memory at once: the parent
 * then ends the candidate's harness, and nothing of it runs while they
 * are judged */
static void *imported;
static size_t importedlen;

/* the L2 flush's buffer, flushlen bytes (the device's dvinfo.flushbytes):
 * made at the first case and kept, as a cudaFree is a device synchronize
 * and more (0.5 ms for 4 MiB on an H100: bench/gpu-setup.cu) */
static void *flushbuf;
static size_t flushlen;

/* the current case */
static struct {
	int nt, ns, holds;
	int kind[MAXT], dt[MAXT];
	size_t numel[MAXT], bytes[MAXT];
	int64_t sizes[MAXS];
	void *group[2][MAXT], *hold[MAXHOLDS][MAXT];
	void *holdblock;         /* every held copy: slot s at s * slot, its outputs as fetch lays them out */
	int holdfd;              /* shareable (dv_allocshared): its descriptor, else -1 */
	int shareerr;            /* why not, else 0 */
	size_t slot;
	int flushes;
} C;

/* the fence: device memory held so that only what a case leaves stays
 * free; kept across cases, only grown or shrunk by pieces of about a
 * 128th of the device (on an H200 taking 130 GiB again costs 0.38 s, be
 * it in one piece or in 1 GiB ones, but two 1 GiB pieces back and again
 * 1 ms: bench/gpu-setup.cu) */
static void *fence[MAXFENCE];

/* fence pieces given back, the last (smallest) first, until keep bytes are free */
static void
unfence(long long keep)
{
	size_t fr = 0, tot = 0;
	int i;

	for (i = MAXFENCE - 1; i >= 0 && dv_meminfo(&fr, &tot) == 0 && (long long)fr < keep; i--)
		if (fence[i]) {
			dv_free(fence[i]);
			fence[i] = NULL;
		}
}

static void
fenceto(long long keep)
{
	size_t fr = 0, tot = 0;
	int i;

	unfence(keep); /* too little free: pieces back */
	/* too much: more pieces (one the allocator refuses is tried at half the size) */
	for (i = 0; i < MAXFENCE && dv_meminfo(&fr, &tot) == 0 && (long long)fr > keep + (64ll << 20); i++) {
		size_t piece = ((tot / 128) + ((size_t)64 << 20) - 1) & ~(((size_t)64 << 20) - 1);
		size_t want = (size_t)((long long)fr - keep);
		if (fence[i])
			continue;
		if (want > piece && i < MAXFENCE - 1) /* the last piece takes what is left */
			want = piece;
		while (want > ((size_t)32 << 20) && dv_alloc(&fence[i], want) != 0) {
			dv_lasterror();
			want /= 2;
		}
		if (!fence[i])
			break;
	}
}

static void
casefree(void)
{
	int g, i;

	for (i = 0; i < MAXT; i++) {
		for (g = 0; g < 2; g++)
			if (C.group[g][i])
				dv_free(C.group[g][i]);
	}
	if (C.holdblock && C.holdfd >= 0) {
		dv_freeshared(C.holdblock, C.holds * C.slot);
		close(C.holdfd);
	} else if (C.holdblock) {
		dv_free(C.holdblock);
	}
	if (imported) /* a copy made for another case's layout */
		dv_free(imported);
	imported = NULL;
	importedlen = 0;
	memset(&C, 0, sizeof C);
	C.holdfd = -1;
}

/* shareable device memory, made on a thread of the harness's started
 * before the lockdown (exporting it opens a descriptor, which the lockdown
 * refuses the main thread); where there is none, on the caller's */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int running, want, done, err, fd;
	size_t n;
	void *p;
} sharer = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, -1, 0, NULL };

static void *
sharermain(void *arg)
{
	(void)arg;
	dv_bind();
	pthread_mutex_lock(&sharer.mu);
	for (;;) {
		while (!sharer.want)
			pthread_cond_wait(&sharer.cv, &sharer.mu);
		sharer.err = dv_allocshared(&sharer.p, sharer.n, &sharer.fd);
		sharer.want = 0;
		sharer.done = 1;
		pthread_cond_broadcast(&sharer.cv);
	}
	return NULL;
}

static int
allocshared(void **p, size_t n, int *fd)
{
	int e;

	if (!sharer.running)
		return dv_allocshared(p, n, fd);
	pthread_mutex_lock(&sharer.mu);
	sharer.n = n;
	sharer.done = 0;
	sharer.want = 1;
	pthread_cond_broadcast(&sharer.cv);
	while (!sharer.done)
		pthread_cond_wait(&sharer.cv, &sharer.mu);
	*p = sharer.p;
	*fd = sharer.fd;
	e = sharer.err;
	pthread_mutex_unlock(&sharer.mu);
	return e;
}

static void
docase(size_t flushbytes)
{
	int i, g;
	long long keep;
	size_t fr = 0, tot = 0;

	casefree();
	if (fscanf(cmd, "%d", &C.nt) != 1 || C.nt < 0 || C.nt > MAXT)
		goto bad;
	for (i = 0; i < C.nt; i++) {
		long long n;
		if (fscanf(cmd, "%d %d %lld", &C.kind[i], &C.dt[i], &n) != 3 || C.kind[i] < 0 || C.kind[i] > 2 ||
		    C.dt[i] < 0 || C.dt[i] >= DT_COUNT || n < 0)
			goto bad;
		C.numel[i] = (size_t)n;
		C.bytes[i] = (size_t)n * (size_t)dtinfos[C.dt[i]].size;
	}
	if (fscanf(cmd, "%d", &C.ns) != 1 || C.ns < 0 || C.ns > MAXS)
		goto bad;
	for (i = 0; i < C.ns; i++) {
		long long v;
		if (fscanf(cmd, "%lld", &v) != 1)
			goto bad;
		C.sizes[i] = v;
	}
	if (fscanf(cmd, "%d %lld", &C.holds, &keep) != 2 || C.holds < 0 || C.holds > MAXHOLDS || keep < -1)
		goto bad;
	{
		/* room for this case's buffers, from the fence if need be */
		long long need = (flushbuf ? 0 : (long long)flushbytes) + (64ll << 20);
		for (i = 0; i < C.nt; i++)
			need += 2 * (long long)(C.bytes[i] + CANARY) + (C.kind[i] ? C.holds * (long long)C.bytes[i] : 0);
		unfence(need);
	}
	for (g = 0; g < 2; g++)
		for (i = 0; i < C.nt; i++)
			if (fail(dv_alloc(&C.group[g][i], C.bytes[i] + CANARY)) ||
			    fail(dv_memset((char *)C.group[g][i] + C.bytes[i], 0xA5, CANARY)))
				return;
	/* the held copies in one allocation, that export can hand the oracle */
	for (i = 0; i < C.nt; i++)
		if (C.kind[i] != 0)
			C.slot += (C.bytes[i] + 63) & ~(size_t)63;
	/* shareable where it can be: the oracle's harness reads them there */
	if (C.holds && (C.shareerr = allocshared(&C.holdblock, C.holds * C.slot, &C.holdfd)) != 0) {
		dv_lasterror();
		C.holdblock = NULL;
		C.holdfd = -1;
		if (fail(dv_alloc(&C.holdblock, C.holds * C.slot)))
			return;
	}
	for (g = 0; g < C.holds; g++) {
		size_t off = (size_t)g * C.slot;
		for (i = 0; i < C.nt; i++)
			if (C.kind[i] != 0) {
				C.hold[g][i] = (char *)C.holdblock + off;
				off += (C.bytes[i] + 63) & ~(size_t)63;
			}
	}
	if (!flushbuf && fail(dv_alloc(&flushbuf, flushbytes)))
		return;
	flushlen = flushbytes;
	if (keep >= 0)
		fenceto(keep);
	if (fail(dv_sync()) || fail(dv_meminfo(&fr, &tot)))
		return;
	reply("ok %zu", fr);
	return;
bad:
	reply("error bad case command");
}

struct callctx {
	void **ptrs;
	const int64_t *sizes;
	const double *scalars;
	double returned; /* the host's ms when the entry point returned */
};

static void
callit(void *p)
{
	struct callctx *c = p;

	guardbegin();
	call(entry, c->ptrs, c->sizes, c->scalars);
	c->returned = ms();
	guardend();
}

/* n bytes of outputs at p, before a call, as poison class cls says (dtype.h) */
static int
poison(void *p, size_t n, int cls, uint64_t seed)
{
	struct rt_dist bytes = { DIST_RANDINT, 0, 0, 256, 0, 1, 0 };

	switch (cls) {
	case POISON_ONES: return dv_memset(p, 0xFF, n);
	case POISON_ZERO: return dv_memset(p, 0, n);
	case POISON_HUGE: return dv_memset(p, 0x7F, n);
	case POISON_RANDOM: return dv_draw(p, DT_U8, n, seed, &bytes);
	}
	return 0; /* POISON_KEEP */
}

static void
docall(void)
{
	int g, noop, n, nc, i, k = 0, bad, cls, fast;
	double scalars[MAXS], t0, t1, covered = cover.ms;
	uint64_t before[MAXT], h, sum = 0;
	unsigned long long pseed;
	float evms = 0;
	struct callctx cc;
	char rule[64], detail[512];

	if (fscanf(cmd, "%d %d %d %llu %d %d", &g, &noop, &cls, &pseed, &fast, &n) != 6 || g < 0 || g > 1 || !C.nt ||
	    cls < 0 || cls >= POISON_COUNT || fast < 0 || fast > 1)
		goto bad;
	for (i = 0; i < C.nt; i++) {
		struct rt_dist d;
		unsigned long long seed;
		if (C.kind[i] == 1) {
			if (fail(poison(C.group[g][i], C.bytes[i], cls, pseed + (uint64_t)i)))
				return;
		} else {
			if (k++ >= n || fscanf(cmd, "%d %lf %lf %d %llu %lf %lf", &d.dist, &d.lo, &d.hi, &d.special, &seed,
			                       &d.off, &d.scale) != 7 || d.dist < 0 || d.dist >= DIST_COUNT)
				goto bad;
			d.fast = fast;
			if (fail(dv_draw(C.group[g][i], C.dt[i], C.numel[i], seed, &d)))
				return;
		}
		/* the canaries docase set are not reset: a stray write into the
		 * other group's shows at that group's next call */
	}
	if (k != n || fscanf(cmd, "%d", &nc) != 1 || nc < 0 || nc > MAXS)
		goto bad;
	for (i = 0; i < nc; i++)
		if (fscanf(cmd, "%lf", &scalars[i]) != 1)
			goto bad;
	for (i = 0; i < C.nt; i++)
		if (C.kind[i] == 0 && fail(dv_hash(C.group[g][i], C.bytes[i], (uint64_t)i, &before[i])))
			return;
	if (fail(dv_memset(flushbuf, ++C.flushes & 0xff, flushlen)) || fail(dv_sync()))
		return;
	cc.ptrs = C.group[g];
	cc.sizes = C.sizes;
	cc.scalars = scalars;
	cc.returned = 0;
	lockdownreset();
	t0 = ms();
	i = dv_timed(noop ? NULL : callit, &cc, covered, &evms);
	t1 = ms() - covered; /* the host's time for the call, less the launch cover */
	if (t1 < t0)
		t1 = t0;
	if (cover.adapt && !noop && i == 0)
		coverway((launchfirst() > t0 ? launchfirst() : cc.returned) - t0);
	if (after && !noop && i == 0)
		after();
	if (guardviolation(rule, sizeof rule, detail, sizeof detail) || lockdownviolation(rule, sizeof rule, detail, sizeof detail) ||
	    launchviolation(rule, sizeof rule, detail, sizeof detail) || refusal(rule, sizeof rule, detail, sizeof detail)) {
		dv_sync();
		dv_lasterror();
		reply("violation %s %s", rule, detail);
		return;
	}
	if (fail(i))
		return;
	for (i = 0; i < C.nt; i++) {
		if (fail(dv_check((char *)C.group[g][i] + C.bytes[i], CANARY, 0xA5, &bad)))
			return;
		if (bad) {
			reply("t %.6f %.6f 0 canary %d", (double)evms, t1 - t0, i);
			return;
		}
	}
	for (i = 0; i < C.nt; i++) {
		if (fail(dv_hash(C.group[g][i], C.bytes[i], (uint64_t)i, &h)))
			return;
		if (C.kind[i] == 0 && h != before[i]) {
			reply("t %.6f %.6f 0 input %d", (double)evms, t1 - t0, i);
			return;
		}
		if (C.kind[i] != 0)
			sum += h;
	}
	reply("t %.6f %.6f %llu ok", (double)evms, t1 - t0, (unsigned long long)sum);
	return;
bad:
	reply("error bad call command");
}

/* the outputs of one set of buffers to shm at off, each 64-aligned */
static void
fetchto(void **src, long long off)
{
	int i;

	for (i = 0; i < C.nt; i++) {
		if (C.kind[i] == 0)
			continue;
		if (off < 0 || (unsigned long long)off + C.bytes[i] > shmlen) {
			reply("error fetch past the shared memory");
			return;
		}
		if (fail(dv_fetch(shm + off, src[i], C.bytes[i])))
			return;
		off += (long long)((C.bytes[i] + 63) & ~(size_t)63);
	}
	reply("ok");
}

/* every STEP-th element of group 0's tensor I (the oracle's outputs, from
 * the first) to shm at OFF */
static void
dosample(void)
{
	long long step, off;
	int i;
	size_t count, elem;

	if (fscanf(cmd, "%d %lld %lld", &i, &step, &off) != 3 || i < 0 || i >= C.nt || C.kind[i] == 0 || step < 1 ||
	    off < 0) {
		reply("error bad sample command");
		return;
	}
	elem = (size_t)dtinfos[C.dt[i]].size;
	count = (C.numel[i] + (size_t)step - 1) / (size_t)step;
	if ((unsigned long long)off + count * elem > shmlen) {
		reply("error sample past the shared memory");
		return;
	}
	if (!fail(dv_gather(shm + off, C.group[0][i], elem, count, (size_t)step)))
		reply("ok");
}

/* the held copies for the oracle's harness (the calls are over): their
 * descriptor over the socket, then the reply. The fence goes first, all
 * of it: the oracle's harness needs room beside them (its copy of them,
 * its buffers, the flush, its libraries), and this process, which the
 * parent kills once the oracle has its copy and reaps after its GPU
 * lease, ends with no fence to give back beside another's timed calls */
static void
doexport(void)
{
	if (!C.holdblock || !C.slot) {
		reply("cuda 801 no held copies to share");
		return;
	}
	if (C.holdfd >= 0)
		unfence(LLONG_MAX);
	if (fail(dv_sync()))
		return;
	if (C.holdfd < 0)
		reply("cuda 801 the held copies are not shareable here (%d: %s)", C.shareerr, dv_error(C.shareerr));
	else if (fdsend(6, C.holdfd) < 0)
		reply("cuda 801 cannot send the held copies' descriptor");
	else
		reply("ipc %zu", C.slot);
}


static void
doimport(void)
{
	long long n;
	int fd, e;

	if (fscanf(cmd, "%lld", &n) != 1 || n <= 0) {
		if ((fd = fdrecv(6)) >= 0) /* not left for the next import */
			close(fd);
		reply("error bad import command");
		return;
	}
	void *theirs = NULL;

	if (imported)
		dv_free(imported);
	imported = NULL;
	importedlen = 0;
	if ((fd = fdrecv(6)) < 0) {
		reply("error import without a descriptor");
		return;
	}
	e = dv_openshared(fd, (size_t)n, &theirs);
	close(fd);
	if (e != 0) {
		dv_lasterror(); /* not left for the calls of the fallback */
		fail(e);
		return;
	}
	if (fail(dv_alloc(&imported, (size_t)n)) || fail(dv_copy(imported, theirs, (size_t)n)) || fail(dv_sync())) {
		dv_freeshared(theirs, (size_t)n);
		if (imported)
			dv_free(imported);
		imported = NULL;
		dv_lasterror();
		return;
	}
	dv_freeshared(theirs, (size_t)n);
	importedlen = (size_t)n;
	reply("ok");
}

/* imported slot s's outputs to shm at off, as fetch lays them out */
static void
fetchimported(int s, long long off)
{
	void *src[MAXT];
	size_t at = (size_t)s * C.slot;

	if (s < 0 || !C.slot || (size_t)s >= importedlen / C.slot) {
		reply("error fetchimported past the imported copies");
		return;
	}
	for (int i = 0; i < C.nt; i++) {
		src[i] = (char *)imported + at;
		if (C.kind[i] != 0)
			at += (C.bytes[i] + 63) & ~(size_t)63;
	}
	fetchto(src, off);
}

/* the shared memory pinned from what is already to len (page-rounded):
 * copies to and from it run faster, pinning 4 GiB takes 0.3 s */
static size_t pinned;

static void
dopin(void)
{
	long long n;
	size_t to, from = pinned;

	if (fscanf(cmd, "%lld", &n) != 1 || n < 0 || (unsigned long long)n > shmlen) {
		reply("error bad pin command");
		return;
	}
	to = ((size_t)n + 4095) & ~(size_t)4095;
	if (to > shmlen)
		to = shmlen;
	if (to > from) {
		dv_pin(shm + from, to - from);
		pinned = to;
	}
	reply("ok");
}

static void
docompare(void)
{
	char src[8];
	long long off;
	int i, ipc;
	double atol, rtol;
	struct cmpsums sums = { 0, 0, 0 };
	uint64_t h = 0;

	if (fscanf(cmd, "%7s %lld %d %lf %lf", src, &off, &i, &atol, &rtol) != 5 || i < 0 || i >= C.nt ||
	    C.kind[i] == 0 || off < 0 || (strcmp(src, "shm") && strcmp(src, "ipc"))) {
		reply("error bad compare command");
		return;
	}
	ipc = !strcmp(src, "ipc");
	if ((unsigned long long)off + C.bytes[i] > (ipc ? importedlen : shmlen)) {
		reply("error compare past the %s", ipc ? "imported copies" : "shared memory");
		return;
	}
	if (fail(ipc ? dv_copy(C.group[1][i], (char *)imported + off, C.bytes[i])
	             : dv_upload(C.group[1][i], shm + off, C.bytes[i])) ||
	    fail(dv_compare(C.group[1][i], C.group[0][i], C.dt[i], C.numel[i], atol, rtol, &sums)) ||
	    fail(dv_hash(C.group[1][i], C.bytes[i], (uint64_t)i, &h)))
		return;
	reply("cmp %llu %a %a %llu", sums.bad, sums.num, sums.den, (unsigned long long)h);
}

static void
dohold(void)
{
	int g, slot, i;

	if (fscanf(cmd, "%d %d", &g, &slot) != 2 || g < 0 || g > 1 || slot < 0 || slot >= C.holds) {
		reply("error bad hold command");
		return;
	}
	for (i = 0; i < C.nt; i++)
		if (C.kind[i] != 0 && fail(dv_copy(C.hold[slot][i], C.group[g][i], C.bytes[i])))
			return;
	reply("ok");
}

/* the shared object and its entry point (SO "-": the caller's, call alone) */
static int
load(const char *path, const char *name, int failure, const char *why)
{
	void *so;

	if (failure) {
		reply("%s %s", failure == HLOADERROR ? "loaderror" : "noentry", why ? why : "?");
		return -1;
	}
	if (!strcmp(path, "-")) {
		entry = (void *)&call;
		return 0;
	}
	so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		const char *m = dlerror();
		reply("loaderror %s", m ? m : "?");
		return -1;
	}
	entry = dlsym(so, name);
	if (!entry) {
		reply("noentry %s", name);
		return -1;
	}
	return 0;
}

/* a Python entry point's status until the parent's "lock": Triton
 * compiles each kernel at its first call (ptxas, a process; its cache,
 * files), so the first call of each case runs before the lockdown */
#define PYUNLOCKED "none: not yet (a Python entry point: the first call of each case comes before the lockdown)"

/* the lockdown, with the thread that makes shareable device memory
 * started before it (a thread is a clone the lockdown refuses); the
 * RELRO pages read-only again first (a Python entry point's first calls
 * ran before it) */
static void
lockself(char *status, size_t cap)
{
	pthread_t t;

	sharer.running = pthread_create(&t, NULL, sharermain, NULL) == 0;
	lockrelro();
	lockdown(status, cap);
}

/* the CUDA context made at the parent's "ctx" (its room for it: see
 * awaitgo), dv_init's result (-1 while not made) and what it found */
static int ctxmade = -1;
static struct dvinfo ctxinfo;

int
harnessctx(int device)
{
	if (ctxmade < 0)
		ctxmade = dv_init(device, &ctxinfo);
	return ctxmade;
}

/* the parent's "go" (its GPU lease), or the end of this process. Before
 * it, "ctx": the CUDA context now, out of the room the lease holder's
 * fence leaves its neighbours (hkeep), and nothing else on the device;
 * "wait": the reply "waiting" once what came before it is done */
static void
awaitgo(int device)
{
	char word[32];

	fflush(rep);
	while (fscanf(cmd, "%31s", word) == 1) {
		if (!strcmp(word, "go"))
			return;
		if (!strcmp(word, "wait"))
			reply("waiting%s", ctxmade < 0 ? "" : ctxmade ? " its CUDA context failed" : " its CUDA context made");
		else if (!strcmp(word, "ctx") && ctxmade < 0)
			harnessctx(device);
		else
			break;
	}
	_exit(0);
}

int
harnessmain(int argc, char **argv, harnesscall fn, void (*afterfn)(void), int failure, const char *why)
{
	struct stat st;
	struct dvinfo info;
	char word[32], lock[256] = "none: open (trusted code, or the compute-sanitizer run)";
	int e, isopen, opengated, candgated, python;

	if (argc < 4 || argc > 5)
		return 2;
	opengated = argc == 5 && !strcmp(argv[4], "open-gated");
	candgated = argc == 5 && !strcmp(argv[4], "gated");
	isopen = opengated || (argc == 5 && !strcmp(argv[4], "open"));
	python = !strcmp(argv[1], "-");
	cover.ms = dv_cover();
	call = fn;
	after = afterfn;
	cmd = fdopen(3, "r");
	rep = fdopen(4, "w");
	if (!cmd || !rep || fstat(5, &st) < 0)
		return 2;
	shmlen = (size_t)st.st_size;
	shm = shmlen ? mmap(NULL, shmlen, PROT_READ | PROT_WRITE, MAP_SHARED, 5, 0) : NULL;
	if (shmlen && shm == MAP_FAILED)
		return 2;
	/* the candidate's modules load now, before the lockdown; trusted
	 * code's libraries (cuBLAS, cuDNN) load what they use when they use
	 * it: eagerly, cuDNN alone takes seconds */
	if (!isopen && !python)
		setenv("CUDA_MODULE_LOADING", "EAGER", 1);
	memset(&info, 0, sizeof info);
	if (opengated) { /* loaded, then no further until the parent says go */
		guardinit();
		if (load(argv[1], argv[2], failure, why) < 0)
			return 0;
		awaitgo(atoi(argv[3]));
	}
	/* the driver up, nothing on the device: the context, made out of
	 * the memory another candidate's fence left it, and anything of the
	 * candidate's wait for the parent's lease (a failure shows in dv_init) */
	if (candgated) {
		dv_driver();
		awaitgo(atoi(argv[3]));
	}
	/* made at "ctx" (here or at pyharness.py's gate), else now: one that
	 * failed there (the lease holder's candidate had taken the room) is
	 * tried again in the lease */
	if (ctxmade == 0)
		info = ctxinfo;
	if ((e = ctxmade == 0 ? 0 : dv_init(atoi(argv[3]), &info)) != 0) {
		reply("nodevice %s", dv_error(e));
		return 0;
	}
	if (!opengated) {
		guardinit();
		if (load(argv[1], argv[2], failure, why) < 0)
			return 0;
	}
	dv_sync(); /* its modules registered and loaded before the lockdown */
	dv_lasterror();
	if (python && !isopen)
		snprintf(lock, sizeof lock, "%s", PYUNLOCKED);
	else if (!isopen)
		lockself(lock, sizeof lock);
	reply("ready %s|%d.%d|%ld|%d|%d|%d|%s|%s", info.name, info.major, info.minor, info.l2, info.sms, info.driver,
	      info.runtime, info.uuid, lock);
	while (fscanf(cmd, "%31s", word) == 1) {
		long long off;
		int g;
		if (!strcmp(word, "quit")) {
			fflush(rep);
			_exit(0);
		} else if (!strcmp(word, "case")) {
			docase(info.flushbytes);
		} else if (!strcmp(word, "call")) {
			docall();
		} else if (!strcmp(word, "fetch")) {
			if (fscanf(cmd, "%d %lld", &g, &off) != 2 || g < 0 || g > 1 || !C.nt)
				reply("error bad fetch command");
			else
				fetchto(C.group[g], off);
		} else if (!strcmp(word, "hold")) {
			dohold();
		} else if (!strcmp(word, "fetchhold")) {
			if (fscanf(cmd, "%d %lld", &g, &off) != 2 || g < 0 || g >= C.holds)
				reply("error bad fetchhold command");
			else
				fetchto(C.hold[g], off);
		} else if (!strcmp(word, "fetchimported")) {
			if (fscanf(cmd, "%d %lld", &g, &off) != 2 || !C.nt)
				reply("error bad fetchimported command");
			else
				fetchimported(g, off);
		} else if (!strcmp(word, "compare")) {
			docompare();
		} else if (!strcmp(word, "sample")) {
			dosample();
		} else if (!strcmp(word, "pin")) {
			dopin();
		} else if (!strcmp(word, "export")) {
			doexport();
		} else if (!strcmp(word, "import")) {
			doimport();
		} else if (!strcmp(word, "lock")) {
			if (python && !isopen && !strcmp(lock, PYUNLOCKED)) {
				lockself(lock, sizeof lock);
				cover.adapt = cover.ms > 0;
			}
			reply("locked %s|%s", lock, launchstatus());
		} else if (!strcmp(word, "sync")) {
			if (!fail(dv_sync()))
				reply("ok");
		} else {
			reply("error unknown command '%s'", word);
		}
	}
	_exit(0);
}

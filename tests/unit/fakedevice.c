/*
 * fakedevice.c - src/runtime/device.h (and guard.h) on the CPU, for the
 * test suite: host memory stands in for device memory, tensor.c draws the
 * inputs (the same values draw.h gives the GPU), the host clock stands in
 * for CUDA events; a normal draw costs four times the others (on the GPU
 * too the distribution sets a draw's cost). prepare --runtime --fake links
 * it into a harness that runs candidates written in C (tests/fake), so
 * that verify's and bench's
 * side of the protocol (verdicts, tolerances, poison, canaries, the
 * oracle, the timing loop, the parent's clock) runs in ninja test.
 *
 * fake_scale_events(f), exported for the candidates, scales every event
 * time the device reports from then on: a candidate that calls it stands
 * for one that tampers with the harness's timer from inside the process.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../../src/runtime/device.h"
#include "../../src/runtime/guard.h"
#include "../../src/lib/draw.h"
#include "../../src/lib/tensor.h"

static size_t allocated;
static const size_t TOTAL = (size_t)1 << 30;
static double scale = 1;

void
fake_scale_events(double f)
{
	scale = f;
}

/* as a GPU host with the leased GPU alone visible: CUDA_VISIBLE_DEVICES
 * names one device (a fake UUID from it), and that is device 0; one
 * named slowctx... takes 2 s to make its context, one named failctx...
 * fails to make the first */
int
dv_init(int device, struct dvinfo *info)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");

	if (!v || !*v || strchr(v, ','))
		return 100; /* cudaErrorNoDevice: the harness must see one GPU alone */
	if (device != 0)
		return 101; /* cudaErrorInvalidDevice */
	static int made;
	if (!strncmp(v, "failctx", 7) && !made++)
		return 2; /* cudaErrorMemoryAllocation: the first context fails, as where no room was left (t0800) */
	if (!strncmp(v, "slowctx", 7)) { /* a device whose context takes 2 s to make (t0800) */
		struct timespec t = { 2, 0 };
		nanosleep(&t, NULL);
	}
	snprintf(info->name, sizeof info->name, "Fake GPU");
	snprintf(info->uuid, sizeof info->uuid, "GPU-fake-%.40s", v);
	info->major = 9;
	info->minor = 0;
	info->sms = 132;
	info->l2 = 1 << 20;
	info->flushbytes = 2 << 20;
	info->driver = info->runtime = 13000;
	return 0;
}

int
dv_driver(void)
{
	return 0;
}

const char *
dv_error(int code)
{
	static char s[64];

	snprintf(s, sizeof s, "fake device error %d", code);
	return s;
}

int dv_lasterror(void) { return 0; }

int
dv_alloc(void **p, size_t n)
{
	size_t *b;

	if (allocated + n > TOTAL || !(b = malloc(n + 16)))
		return 2; /* cudaErrorMemoryAllocation */
	b[0] = n;
	allocated += n;
	*p = b + 2;
	return 0;
}

void
dv_free(void *p)
{
	size_t *b = (size_t *)p - 2;

	allocated -= b[0];
	free(b);
}

int
dv_meminfo(size_t *freebytes, size_t *total)
{
	*freebytes = TOTAL - allocated;
	*total = TOTAL;
	return 0;
}

int dv_memset(void *p, int byte, size_t n) { memset(p, byte, n); return 0; }
int dv_copy(void *d, const void *s, size_t n) { memcpy(d, s, n); return 0; }
int dv_fetch(void *h, const void *s, size_t n) { memcpy(h, s, n); return 0; }
int dv_upload(void *d, const void *h, size_t n) { memcpy(d, h, n); return 0; }

int
dv_gather(void *h, const void *s, size_t elem, size_t count, size_t step)
{
	for (size_t k = 0; k < count; k++)
		memcpy((char *)h + k * elem, (const char *)s + k * step * elem, elem);
	return 0;
}
int dv_sync(void) { return 0; }

int
dv_compare(const void *got, const void *want, int dt, size_t n, double atol, double rtol, struct cmpsums *s)
{
	s->bad = 0;
	s->num = s->den = 0;
	for (size_t i = 0; i < n; i++) {
		double g = rt_loadgot(got, want, dt, i), w = rt_load(want, dt, i);
		if (isfinite(g) && isfinite(w)) {
			s->num += (g - w) * (g - w);
			s->den += w * w;
		}
		s->bad += (unsigned long long)rt_elembad(g, w, atol, rtol);
	}
	return 0;
}
void dv_pin(void *host, size_t n) { (void)host; (void)n; }
/* memory shared between processes on a device named ...ipc... alone: an
 * unlinked file in /tmp (made on the harness's sharer thread, as the
 * GPU's export; the lockdown refuses memfd_create), host memory both
 * map; elsewhere none, and bench falls back to the shared memory, as on
 * a platform without */
int dv_bind(void) { return 0; }

static int
fakeipc(void)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");

	return v && strstr(v, "ipc");
}

int
dv_allocshared(void **p, size_t n, int *fd)
{
	*p = NULL;
	*fd = -1;
	if (!fakeipc())
		return 801; /* cudaErrorNotSupported */
	char path[] = "/tmp/fake-held-XXXXXX";

	if ((*fd = mkostemp(path, O_CLOEXEC)) < 0 || unlink(path) < 0 || ftruncate(*fd, (off_t)n) < 0 ||
	    (*p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0)) == MAP_FAILED) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		*p = NULL;
		return 2;
	}
	return 0;
}

int
dv_openshared(int fd, size_t n, void **p)
{
	struct stat st;

	*p = NULL;
	if (!fakeipc() || strstr(getenv("CUDA_VISIBLE_DEVICES"), "noimport"))
		return 801;
	if (fstat(fd, &st) < 0 || (size_t)st.st_size < n)
		return 1; /* cudaErrorInvalidValue: smaller than asked */
	if ((*p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		*p = NULL;
		return 2;
	}
	return 0;
}

void
dv_freeshared(void *p, size_t n)
{
	if (p)
		munmap(p, n);
}

int
dv_draw(void *p, int dt, size_t n, uint64_t seed, const struct rt_dist *d)
{
	/* as on the GPU, some distributions cost more to draw than others */
	for (int k = d->dist == DIST_NORMAL ? 4 : 1; k > 0; k--)
		tensorfill(p, dt, n, d, seed);
	return 0;
}

int
dv_hash(const void *p, size_t n, uint64_t salt, uint64_t *out)
{
	*out = rt_hash(p, n, salt);
	return 0;
}

int
dv_check(const void *p, size_t n, int byte, int *bad)
{
	const unsigned char *b = p;

	*bad = 0;
	for (size_t i = 0; i < n; i++)
		if (b[i] != (unsigned char)byte)
			*bad = 1;
	return 0;
}

/* no launch to cover on the CPU */
double dv_cover(void) { return 0; }

int
dv_timed(void (*fn)(void *), void *arg, double cover, float *ms)
{
	struct timespec a, b;

	(void)cover;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (fn)
		fn(arg);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*ms = (float)(scale * ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) * 1e-6));
	return 0;
}

/* no CUDA runtime to guard */
void guardinit(void) {}
void guardbegin(void) {}
void guardend(void) {}
int guardviolation(char *rule, size_t rcap, char *detail, size_t dcap) { (void)rule; (void)rcap; (void)detail; (void)dcap; return 0; }

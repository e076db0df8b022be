/* tensor.c - see tensor.h */
#include "tensor.h"

#include "draw.h"
#include "parts.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/*
 * name, signature type and the header that declares it, reference type,
 * size, float, then the default output tolerances (rel_norm, rtol, atol)
 * and the default randint range
 */
const struct dtinfo dtinfos[DT_COUNT] = {
	{ "f64", "double", NULL, "double", 8, 1, 1e-10, 1e-7, 1e-9, 0, 0 },
	{ "f32", "float", NULL, "float", 4, 1, 1e-4, 1e-3, 1e-5, 0, 0 },
	{ "f16", "__half", "cuda_fp16.h", "float", 2, 1, 5e-3, 1e-2, 1e-3, 0, 0 },
	{ "bf16", "__nv_bfloat16", "cuda_bf16.h", "float", 2, 1, 2e-2, 5e-2, 1e-2, 0, 0 },
	{ "f8e4m3", "__nv_fp8_e4m3", "cuda_fp8.h", "float", 1, 1, 0.1, 0.25, 0.05, 0, 0 },
	{ "f8e5m2", "__nv_fp8_e5m2", "cuda_fp8.h", "float", 1, 1, 0.2, 0.5, 0.1, 0, 0 },
	{ "i8", "int8_t", "stdint.h", "int8_t", 1, 0, 0, 0, 0, -128, 128 },
	{ "u8", "uint8_t", "stdint.h", "uint8_t", 1, 0, 0, 0, 0, 0, 256 },
	{ "i16", "int16_t", "stdint.h", "int16_t", 2, 0, 0, 0, 0, -1000, 1000 },
	{ "i32", "int32_t", "stdint.h", "int32_t", 4, 0, 0, 0, 0, -1000, 1000 },
	{ "i64", "int64_t", "stdint.h", "int64_t", 8, 0, 0, 0, 0, -1000, 1000 },
};

const char *const distnames[DIST_COUNT] = { "normal", "uniform", "heavy", "randint", "ties" };

int
dtypefind(const char *name)
{
	int i;

	for (i = 0; i < DT_COUNT; i++)
		if (strcmp(dtinfos[i].name, name) == 0)
			return i;
	return -1;
}

const char *
dtypenames(void)
{
	static char list[DT_COUNT * 10];
	size_t n = 0;

	if (!list[0])
		for (int i = 0; i < DT_COUNT; i++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", dtinfos[i].name);
	return list;
}

const char *const tolnames[4] = { "rel_norm", "rtol", "atol", NULL };

double
deftol(const struct dtinfo *d, const char *name)
{
	return !strcmp(name, "rel_norm") ? d->rel_norm : !strcmp(name, "rtol") ? d->rtol : !strcmp(name, "atol") ? d->atol
	       : -1;
}

int
distfind(const char *name)
{
	int i;

	for (i = 0; i < DIST_COUNT; i++)
		if (strcmp(distnames[i], name) == 0)
			return i;
	return -1;
}

/* f16 decodes through a table, made once */
static float f16table[1 << 16];
static pthread_once_t f16once = PTHREAD_ONCE_INIT;

static void
f16init(void)
{
	for (unsigned h = 0; h < 1u << 16; h++)
		f16table[h] = (float)rt_smalldec(h, rt_fmtof(DT_F16));
}

const float *
f16values(void)
{
	pthread_once(&f16once, f16init);
	return f16table;
}

float
f16tof(uint16_t h)
{
	return f16values()[h];
}

uint16_t ftof16(float f) { return (uint16_t)rt_ieeeenc(f, rt_fmtof(DT_F16)); }

float
bf16tof(uint16_t h)
{
	/* bf16 is the top half of a float */
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

uint16_t ftobf16(float f) { return (uint16_t)rt_ieeeenc(f, rt_fmtof(DT_BF16)); }
float f8tof(uint8_t v, int e5m2) { return (float)rt_smalldec(v, rt_fmtof(e5m2 ? DT_F8E5M2 : DT_F8E4M3)); }
uint8_t ftof8(float f, int e5m2) { return (uint8_t)rt_smallenc(f, rt_fmtof(e5m2 ? DT_F8E5M2 : DT_F8E4M3)); }

double
dtget(const void *buf, int dt, size_t i)
{
	/* through memcpy: tensors packed one after another in a buffer need
	 * not be aligned to their element size */
	const char *p = (const char *)buf + i * (size_t)dtinfos[dt].size;
#define LOAD(T) do { T v_; memcpy(&v_, p, sizeof v_); return (double)v_; } while (0)
	switch (dt) {
	case DT_F64: LOAD(double);
	case DT_F32: LOAD(float);
	case DT_F16: { uint16_t h; memcpy(&h, p, 2); return f16tof(h); }
	case DT_BF16: { uint16_t h; memcpy(&h, p, 2); return bf16tof(h); }
	case DT_F8E4M3: return rt_smalldec(*(const uint8_t *)p, rt_fmtof(DT_F8E4M3));
	case DT_F8E5M2: return rt_smalldec(*(const uint8_t *)p, rt_fmtof(DT_F8E5M2));
	case DT_I8: return *(const int8_t *)p;
	case DT_U8: return *(const uint8_t *)p;
	case DT_I16: LOAD(int16_t);
	case DT_I32: LOAD(int32_t);
	case DT_I64: LOAD(int64_t);
	}
#undef LOAD
	return NAN;
}

void
dtset(void *buf, int dt, size_t i, double v)
{
	rt_store(buf, dt, i, v);
}

int
refsize(int dt)
{
	if (dt == DT_F64)
		return 8;
	return dtinfos[dt].isfloat ? 4 : dtinfos[dt].size;
}

void
toref(const void *src, int dt, void *dst, size_t n)
{
	size_t i;

	if (!dtinfos[dt].isfloat || dt == DT_F64 || dt == DT_F32) {
		memcpy(dst, src, n * (size_t)dtinfos[dt].size);
		return;
	}
	for (i = 0; i < n; i++)
		((float *)dst)[i] = (float)dtget(src, dt, i);
}

/* ---- random numbers ---- */

/* element i depends on (seed, i) alone: threads take slices */
struct fillwork {
	void *buf;
	int dt;
	struct rt_dist d;
	size_t from, to;
	uint64_t seed;
	void *ref; /* else NULL: each chunk widened into ref (toref), not kept in buf */
};

/*
 * Elements from .. from + n - 1 (n <= FILLCHUNK) as rt_draw draws them, in
 * three loops of one distribution, one affine map and one dtype each, so
 * that the compiler vectorises them: draw.h's functions are selects on
 * correctly rounded double operations, the same in every lane. Built for
 * the x86-64 levels with wide vectors too, the best taken at run time; the
 * file is compiled -O3 -fno-math-errno (configure, prepare --refrunner).
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define FILL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define FILL_CLONES
#endif
enum { FILLCHUNK = 1024 };

FILL_CLONES static void
fillchunk(const struct fillwork *w, size_t from, size_t n)
{
	double v[FILLCHUNK], lo = w->d.lo, hi = w->d.hi, off = w->d.off, scale = w->d.scale;
	double raw[FILLCHUNK]; /* the chunk in its dtype, before toref (w->ref) */
	uint64_t seed = w->seed;
	void *buf = w->ref ? (void *)raw : w->buf;
	size_t j, at = w->ref ? 0 : from;

#define VALUES(DIST, SP) for (j = 0; j < n; j++) v[j] = rt_value(seed, from + j, DIST, lo, hi, SP)
#define DISTS(SP) \
	switch (w->d.dist) { \
	case DIST_UNIFORM: VALUES(DIST_UNIFORM, SP); break; \
	case DIST_HEAVY: VALUES(DIST_HEAVY, SP); break; \
	case DIST_RANDINT: VALUES(DIST_RANDINT, SP); break; \
	case DIST_TIES: VALUES(DIST_TIES, SP); break; \
	default: VALUES(DIST_NORMAL, SP); break; \
	}
	if (rt_fastdraw(w->d, w->dt)) /* bench's (draw.h rt_fastvalue) */
		for (j = 0; j < n; j++)
			v[j] = rt_fastvalue(seed, from + j, w->d.dist, lo, hi, w->d.special);
	else if (w->d.special)
		DISTS(1)
	else
		DISTS(0)
#undef DISTS
#undef VALUES
	if (scale != 1.0 || off != 0.0)
		for (j = 0; j < n; j++)
			v[j] = rt_add(off, rt_mul(scale, v[j]));
#define STORE(DT) for (j = 0; j < n; j++) rt_store(buf, DT, at + j, v[j])
	switch (w->dt) {
	case DT_F64: STORE(DT_F64); break;
	case DT_F32: STORE(DT_F32); break;
	case DT_I32: STORE(DT_I32); break;
	case DT_I64: STORE(DT_I64); break;
	default: STORE(w->dt); break;
	}
#undef STORE
	if (w->ref)
		toref(raw, w->dt, (char *)w->ref + from * (size_t)refsize(w->dt), n);
}

static void *
fillthread(void *p)
{
	struct fillwork *w = p;
	size_t i;

	for (i = w->from; i < w->to; i += FILLCHUNK)
		fillchunk(w, i, w->to - i < FILLCHUNK ? w->to - i : FILLCHUNK);
	return NULL;
}

void
tensorfill(void *buf, int dt, size_t n, const struct rt_dist *d, uint64_t seed)
{
	struct fillwork w = { buf, dt, *d, 0, n, seed, NULL };

	w.d.special = w.d.special && dtinfos[dt].isfloat;
	fillthread(&w);
}

/* a slice of a job over [0, n): run(job, from, to) on one thread */
struct slice {
	void (*run)(const void *job, size_t from, size_t to);
	const void *job;
	size_t from, to;
};

static void *
runslice(void *p)
{
	const struct slice *s = p;

	s->run(s->job, s->from, s->to);
	return NULL;
}

/* run over [0, n) in one slice a CPU (parts.h; one below 2^18 elements) */
static void
onallcpus(size_t n, void (*run)(const void *, size_t, size_t), const void *job)
{
	struct slice s[PARTS_MAX];
	int k, nt = partsfor(n, (size_t)1 << 18, PARTS_MAX);

	for (k = 0; k < nt; k++) {
		struct slice x = { run, job, n / nt * k, k == nt - 1 ? n : n / nt * (k + 1) };
		s[k] = x;
	}
	runparts(runslice, s, sizeof s[0], nt);
}

static void
fillrange(const void *job, size_t from, size_t to)
{
	struct fillwork w = *(const struct fillwork *)job;

	w.from = from, w.to = to;
	fillthread(&w);
}

void
tensorfillpar(void *buf, int dt, size_t n, const struct rt_dist *d, uint64_t seed)
{
	struct fillwork w = { buf, dt, *d, 0, n, seed, NULL };

	w.d.special = w.d.special && dtinfos[dt].isfloat;
	onallcpus(n, fillrange, &w);
}

void
tensorfillref(void *ref, int dt, size_t n, const struct rt_dist *d, uint64_t seed)
{
	struct fillwork w = { NULL, dt, *d, 0, n, seed, ref };

	if (refsize(dt) == dtinfos[dt].size) /* the dtype's own: drawn in place */
		w.buf = ref, w.ref = NULL;
	w.d.special = w.d.special && dtinfos[dt].isfloat;
	onallcpus(n, fillrange, &w);
}

/* what tensorunwritten fills */
struct unwritten {
	void *ref;
	int dt;
};

static void
unwrittenrange(const void *job, size_t from, size_t to)
{
	const struct unwritten *u = job;
	size_t k, size = (size_t)refsize(u->dt);

	if (!dtinfos[u->dt].isfloat)
		memset((char *)u->ref + from * size, 0, (to - from) * size);
	else if (u->dt == DT_F64)
		for (k = from; k < to; k++)
			((double *)u->ref)[k] = NAN;
	else
		for (k = from; k < to; k++)
			((float *)u->ref)[k] = NAN;
}

void
tensorunwritten(void *ref, int dt, size_t n)
{
	struct unwritten u = { ref, dt };

	onallcpus(n, unwrittenrange, &u);
}

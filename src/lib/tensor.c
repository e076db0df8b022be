/* tensor.c - see tensor.h */
#include "tensor.h"

#include "draw.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

void
tensorfill(void *buf, int dt, size_t n, const struct rt_dist *d, uint64_t seed)
{
	struct rt_dist x = *d;
	size_t i;

	x.special = x.special && dtinfos[dt].isfloat;
	for (i = 0; i < n; i++)
		rt_draw(buf, dt, i, seed, x);
}

/* element i depends on (seed, i) alone: threads take slices */
struct fillwork {
	void *buf;
	int dt;
	struct rt_dist d;
	size_t from, to;
	uint64_t seed;
};

static void *
fillthread(void *p)
{
	struct fillwork *w = p;
	size_t i;

	for (i = w->from; i < w->to; i++)
		rt_draw(w->buf, w->dt, i, w->seed, w->d);
	return NULL;
}

void
tensorfillpar(void *buf, int dt, size_t n, const struct rt_dist *d, uint64_t seed)
{
	struct fillwork w[32];
	pthread_t th[32];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int k, nt = cpus < 1 ? 1 : cpus > 32 ? 32 : (int)cpus, started;

	if (n < (size_t)1 << 18)
		nt = 1;
	for (k = 0; k < nt; k++) {
		struct fillwork x = { buf, dt, *d, n / nt * k, k == nt - 1 ? n : n / nt * (k + 1), seed };
		x.d.special = x.d.special && dtinfos[dt].isfloat;
		w[k] = x;
	}
	for (started = 1; started < nt; started++)
		if (pthread_create(&th[started], NULL, fillthread, &w[started]) != 0)
			break;
	fillthread(&w[0]);
	for (k = started; k < nt; k++) /* the slices no thread took */
		fillthread(&w[k]);
	while (--started > 0)
		pthread_join(th[started], NULL);
}

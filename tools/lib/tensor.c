/* tensor.c - see tensor.h */
#include "tensor.h"

#include <math.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

/*
 * name, signature type, reference type, size, float, then the default
 * output tolerances (rel_norm, rtol, atol) and the default randint range
 */
const struct dtinfo dtinfos[DT_COUNT] = {
	{ "f64", "double", "double", 8, 1, 1e-10, 1e-7, 1e-9, 0, 0 },
	{ "f32", "float", "float", 4, 1, 1e-4, 1e-3, 1e-5, 0, 0 },
	{ "f16", "__half", "float", 2, 1, 5e-3, 1e-2, 1e-3, 0, 0 },
	{ "bf16", "__nv_bfloat16", "float", 2, 1, 2e-2, 5e-2, 1e-2, 0, 0 },
	{ "f8e4m3", "__nv_fp8_e4m3", "float", 1, 1, 0.1, 0.25, 0.05, 0, 0 },
	{ "f8e5m2", "__nv_fp8_e5m2", "float", 1, 1, 0.2, 0.5, 0.1, 0, 0 },
	{ "i8", "int8_t", "int8_t", 1, 0, 0, 0, 0, -128, 128 },
	{ "u8", "uint8_t", "uint8_t", 1, 0, 0, 0, 0, 0, 256 },
	{ "i16", "int16_t", "int16_t", 2, 0, 0, 0, 0, -1000, 1000 },
	{ "i32", "int32_t", "int32_t", 4, 0, 0, 0, 0, -1000, 1000 },
	{ "i64", "int64_t", "int64_t", 8, 0, 0, 0, 0, -1000, 1000 },
};

const char *const distnames[DIST_COUNT] = { "normal", "uniform", "heavy", "randint" };

int
dtypefind(const char *name)
{
	int i;

	for (i = 0; i < DT_COUNT; i++)
		if (strcmp(dtinfos[i].name, name) == 0)
			return i;
	return -1;
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

/* ---- small floats: one encoder and decoder for f16, bf16 and fp8 ---- */

struct fmt {
	int ebits, mbits;
	int hasinf;  /* IEEE-like: the top exponent is Inf/NaN; else only all-ones is NaN */
};

static const struct fmt F16 = { 5, 10, 1 }, BF16 = { 8, 7, 1 }, E4M3 = { 4, 3, 0 }, E5M2 = { 5, 2, 1 };

static double
smalldec(unsigned bits, struct fmt f)
{
	unsigned sign = bits >> (f.ebits + f.mbits) & 1;
	unsigned e = bits >> f.mbits & ((1u << f.ebits) - 1);
	unsigned m = bits & ((1u << f.mbits) - 1);
	unsigned emax = (1u << f.ebits) - 1;
	int bias = (1 << (f.ebits - 1)) - 1;
	double v;

	if (f.hasinf && e == emax)
		v = m ? NAN : INFINITY;
	else if (!f.hasinf && e == emax && m == (1u << f.mbits) - 1)
		v = NAN;
	else if (e == 0)
		v = ldexp((double)m, 1 - bias - f.mbits);
	else
		v = ldexp(1.0 + (double)m / (1u << f.mbits), (int)e - bias);
	return sign ? -v : v;
}

/* round to nearest even; finite values past the largest saturate to it */
static unsigned
smallenc(double v, struct fmt f)
{
	unsigned sign = signbit(v) ? 1u : 0u, e, q;
	unsigned emax = (1u << f.ebits) - 1;
	unsigned mmax = (1u << f.mbits) - 1;
	unsigned topexp = f.hasinf ? emax - 1 : emax;           /* largest finite exponent */
	unsigned topman = f.hasinf ? mmax : mmax - 1;            /* and mantissa */
	int bias = (1 << (f.ebits - 1)) - 1, ex;
	double a = fabs(v), m;

	if (isnan(v))
		return (emax << f.mbits) | mmax; /* a quiet NaN (all ones) */
	sign <<= f.ebits + f.mbits;
	if (isinf(v))
		return f.hasinf ? sign | (emax << f.mbits) : sign | (emax << f.mbits) | mmax;
	if (a == 0)
		return sign;
	ex = ilogb(a);
	if (ex < 1 - bias) { /* subnormal */
		q = (unsigned)nearbyint(ldexp(a, bias - 1 + f.mbits));
		return sign | q; /* q == mmax + 1 rolls into the smallest normal */
	}
	m = ldexp(a, -ex) - 1.0;
	q = (unsigned)nearbyint(ldexp(m, f.mbits));
	if (q > mmax) {
		q = 0;
		ex++;
	}
	e = (unsigned)(ex + bias);
	if (e > topexp || (e == topexp && q > topman)) /* past the range: round to nearest */
		return f.hasinf ? sign | (emax << f.mbits) /* overflows to Inf, as __float2half_rn */
		                : sign | (topexp << f.mbits) | topman; /* e4m3 has none: saturates */
	return sign | (e << f.mbits) | q;
}

/*
 * The same rounding for f16 and bf16 on the hot paths (inputs drawn,
 * outputs compared: hundreds of millions of elements): a value whose
 * result is normal is rounded on its double bits (add half an ulp minus
 * one, plus the kept lowest bit: ties go to even; a carry moves into the
 * exponent, and past the top that is Inf); the rest takes smallenc.
 */
static unsigned
ieeeenc(double v, struct fmt f)
{
	int bias = (1 << (f.ebits - 1)) - 1, shift = 52 - f.mbits, e;
	unsigned emax = (1u << f.ebits) - 1, r;
	uint64_t b, a;

	memcpy(&b, &v, sizeof b);
	a = b & ~(1ull << 63);
	e = (int)(a >> 52) - 1023;
	if (e < 1 - bias || e > bias) /* zero, subnormal, past the range, Inf, NaN */
		return smallenc(v, f);
	a += (1ull << (shift - 1)) - 1 + (a >> shift & 1);
	r = (unsigned)((a >> shift) - ((uint64_t)(1023 - bias) << f.mbits));
	if (r >> f.mbits >= emax)
		r = emax << f.mbits;
	return (unsigned)(b >> 63) << (f.ebits + f.mbits) | r;
}

/* f16 decodes through a table, made once */
static float f16table[1 << 16];
static pthread_once_t f16once = PTHREAD_ONCE_INIT;

static void
f16init(void)
{
	for (unsigned h = 0; h < 1u << 16; h++)
		f16table[h] = (float)smalldec(h, F16);
}

float
f16tof(uint16_t h)
{
	pthread_once(&f16once, f16init);
	return f16table[h];
}

uint16_t ftof16(float f) { return (uint16_t)ieeeenc(f, F16); }

float
bf16tof(uint16_t h)
{
	/* bf16 is the top half of a float */
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

uint16_t ftobf16(float f) { return (uint16_t)ieeeenc(f, BF16); }
float f8tof(uint8_t v, int e5m2) { return (float)smalldec(v, e5m2 ? E5M2 : E4M3); }
uint8_t ftof8(float f, int e5m2) { return (uint8_t)smallenc(f, e5m2 ? E5M2 : E4M3); }

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
	case DT_F8E4M3: return smalldec(*(const uint8_t *)p, E4M3);
	case DT_F8E5M2: return smalldec(*(const uint8_t *)p, E5M2);
	case DT_I8: return *(const int8_t *)p;
	case DT_U8: return *(const uint8_t *)p;
	case DT_I16: LOAD(int16_t);
	case DT_I32: LOAD(int32_t);
	case DT_I64: LOAD(int64_t);
	}
#undef LOAD
	return NAN;
}

static double
clampround(double v, double lo, double hi)
{
	v = nearbyint(v);
	return v < lo ? lo : v > hi ? hi : v;
}

void
dtset(void *buf, int dt, size_t i, double v)
{
	switch (dt) {
	case DT_F64: ((double *)buf)[i] = v; break;
	case DT_F32: ((float *)buf)[i] = (float)v; break;
	case DT_F16: ((uint16_t *)buf)[i] = (uint16_t)ieeeenc(v, F16); break;
	case DT_BF16: ((uint16_t *)buf)[i] = (uint16_t)ieeeenc(v, BF16); break;
	case DT_F8E4M3: ((uint8_t *)buf)[i] = (uint8_t)smallenc(v, E4M3); break;
	case DT_F8E5M2: ((uint8_t *)buf)[i] = (uint8_t)smallenc(v, E5M2); break;
	case DT_I8: ((int8_t *)buf)[i] = (int8_t)clampround(v, -128, 127); break;
	case DT_U8: ((uint8_t *)buf)[i] = (uint8_t)clampround(v, 0, 255); break;
	case DT_I16: ((int16_t *)buf)[i] = (int16_t)clampround(v, -32768, 32767); break;
	case DT_I32: ((int32_t *)buf)[i] = (int32_t)clampround(v, -2147483648.0, 2147483647.0); break;
	case DT_I64: ((int64_t *)buf)[i] = (int64_t)clampround(v, -9.2e18, 9.2e18); break;
	}
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

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void
rnginit(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
rngnext(struct rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* [0, 1) */
static double
rnguniform(struct rng *r)
{
	return (double)(rngnext(r) >> 11) * 0x1.0p-53;
}

static double
rngnormal(struct rng *r)
{
	double u = rnguniform(r), v = rnguniform(r);

	/* Box-Muller; 1 - u keeps the logarithm finite */
	return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

/*
 * Inputs are drawn in chunks of CHUNK elements, each from its own stream
 * (seeded from the seed and the chunk's index), so that any number of
 * threads produce the same values.
 */
enum { CHUNK = 1 << 16 };

static void
fillchunk(void *buf, int dt, size_t n, int dist, double lo, double hi, int special, uint64_t seed,
          size_t chunk)
{
	struct rng r;
	size_t i, end = (chunk + 1) * (size_t)CHUNK < n ? (chunk + 1) * (size_t)CHUNK : n;
	uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(chunk + 1));
	double v;

	rnginit(&r, s);
	for (i = chunk * (size_t)CHUNK; i < end; i++) {
		switch (dist) {
		case DIST_UNIFORM:
			v = lo + rnguniform(&r) * (hi - lo);
			break;
		case DIST_HEAVY:
			v = rngnormal(&r) / sqrt(-log(1.0 - rnguniform(&r)));
			v = v > 1e4 ? 1e4 : v < -1e4 ? -1e4 : v;
			break;
		case DIST_RANDINT:
			v = floor(lo + rnguniform(&r) * (hi - lo));
			if (v >= hi)
				v = hi - 1;
			break;
		default:
			v = rngnormal(&r);
			break;
		}
		if (special && dtinfos[dt].isfloat && rnguniform(&r) < 0.01) {
			double which = rnguniform(&r);
			v = which < 1.0 / 3 ? NAN : which < 2.0 / 3 ? INFINITY : -INFINITY;
		}
		dtset(buf, dt, i, v);
	}
}

void
tensorfill(void *buf, int dt, size_t n, int dist, double lo, double hi, int special, uint64_t seed)
{
	size_t c;

	for (c = 0; c * (size_t)CHUNK < n; c++)
		fillchunk(buf, dt, n, dist, lo, hi, special, seed, c);
}

struct fillwork {
	void *buf;
	int dt, dist, special;
	size_t n, next;
	double lo, hi;
	uint64_t seed;
	pthread_mutex_t lock;
};

static void *
fillthread(void *p)
{
	struct fillwork *w = p;

	for (;;) {
		size_t c;
		pthread_mutex_lock(&w->lock);
		c = w->next++;
		pthread_mutex_unlock(&w->lock);
		if (c * (size_t)CHUNK >= w->n)
			return NULL;
		fillchunk(w->buf, w->dt, w->n, w->dist, w->lo, w->hi, w->special, w->seed, c);
	}
}

void
tensorfillpar(void *buf, int dt, size_t n, int dist, double lo, double hi, int special, uint64_t seed)
{
	struct fillwork w = { buf, dt, dist, special, n, 0, lo, hi, seed, PTHREAD_MUTEX_INITIALIZER };
	pthread_t th[32];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int k, nt = cpus < 1 ? 1 : cpus > 32 ? 32 : (int)cpus;

	if (n < 4 * (size_t)CHUNK)
		nt = 1;
	for (k = 0; k < nt; k++)
		if (pthread_create(&th[k], NULL, fillthread, &w) != 0)
			break;
	fillthread(&w); /* this thread helps too, and finishes alone if none started */
	while (k-- > 0)
		pthread_join(th[k], NULL);
}

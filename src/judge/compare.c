/* compare.c - see compare.h */
#include "compare.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../lib/draw.h"
#include "../lib/parts.h"
#include "../lib/tensor.h"

double
refvalue(const void *buf, int dt, size_t i)
{
	/* unaligned-safe: outputs of several dtypes share one buffer */
	if (dtinfos[dt].isfloat && dt != DT_F64) {
		float f;
		memcpy(&f, (const char *)buf + i * sizeof f, sizeof f);
		return f;
	}
	return dtget(buf, dt, i);
}

/* a float dtype narrower than f32, whose range a float reference may pass */
static int
narrowfloat(int dt)
{
	return dtinfos[dt].isfloat && dt != DT_F32 && dt != DT_F64;
}

/* below this (e5m2's largest finite, the least of the narrow floats'
 * largest) no value overflows a narrow float output */
#define NARROW_SAFE 57344.0

/* the expected value as a dtype output holds it: a float reference past
 * f16, bf16 or e5m2's range is Inf there (round to nearest overflows) */
static double
asoutput(double w, int dt)
{
	unsigned char h[8];

	if (!narrowfloat(dt) || !isfinite(w) || fabs(w) < NARROW_SAFE)
		return w;
	dtset(h, dt, 0, w);
	return isinf(dtget(h, dt, 0)) ? dtget(h, dt, 0) : w;
}

/* the relative L2 test, to num = sum (got - want)^2 and den = sum want^2
 * over the finite pairs (den 0: sqrt(num) within atol + rel_norm) */
static int
normok(double num, double den, const struct targ *a)
{
	return den > 0 ? sqrt(num / den) <= a->rel_norm : sqrt(num) <= a->atol + a->rel_norm;
}

/* the fp8 dtypes' values by their bits (exact as floats; f16's are tensor.c's f16values) */
static float e4m3tab[256], e5m2tab[256];
static pthread_once_t tabonce = PTHREAD_ONCE_INIT;

static void
maketables(void)
{
	for (unsigned k = 0; k < 256; k++) {
		uint8_t b = (uint8_t)k;
		e4m3tab[k] = (float)dtget(&b, DT_F8E4M3, 0);
		e5m2tab[k] = (float)dtget(&b, DT_F8E5M2, 0);
	}
}

/* elements [i, i + n) of buf as doubles: in dtype dt, or (asref) as the
 * reference stores that dtype (refvalue); the same values as dtget, a
 * block at a time */
static void
decode(const void *buf, int dt, int asref, int64_t i, int n, double *out)
{
	const unsigned char *p = buf;
	int k;

	if (asref && dtinfos[dt].isfloat && dt != DT_F64)
		dt = DT_F32;
	/* n elements of type T, through memcpy (outputs of several dtypes
	 * share a buffer: not aligned to T) */
#define PLAIN(T) \
	for (k = 0; k < n; k++) { \
		T v_; \
		memcpy(&v_, p + (size_t)(i + k) * sizeof v_, sizeof v_); \
		out[k] = (double)v_; \
	} \
	return
	switch (dt) {
	case DT_F32: PLAIN(float);
	case DT_I8: PLAIN(int8_t);
	case DT_U8: PLAIN(uint8_t);
	case DT_I32: PLAIN(int32_t);
	case DT_I64: PLAIN(int64_t);
	case DT_F16:
	case DT_BF16: {
		const float *f16 = f16values();
		for (k = 0; k < n; k++) {
			uint16_t h;
			memcpy(&h, p + (size_t)(i + k) * 2, 2);
			if (dt == DT_F16) {
				out[k] = f16[h];
			} else { /* bf16tof, inline: this is the hot loop */
				uint32_t u = (uint32_t)h << 16;
				float f;
				memcpy(&f, &u, 4);
				out[k] = f;
			}
		}
		return;
	}
	case DT_F8E4M3:
	case DT_F8E5M2:
		for (k = 0; k < n; k++)
			out[k] = (dt == DT_F8E4M3 ? e4m3tab : e5m2tab)[p[i + k]];
		return;
	default:
		for (k = 0; k < n; k++)
			out[k] = dtget(buf, dt, (size_t)(i + k));
	}
#undef PLAIN
}

/* one slice of the elements, on one thread */
struct part {
	const void *got, *want;
	int dt, wantas;
	int64_t from, to;
	const struct targ *a;
	double num, den;
	struct cmpres r;
};

/* a wrong element, counted (its kind too), one of the first five kept */
static void
elembad(struct cmpres *r, int64_t i, double g, double w)
{
	if (isnan(g) && isfinite(w))
		r->unwritten++;
	else if (!isfinite(g) || !isfinite(w))
		r->nonfinite++;
	if (r->nfirst < 5) {
		r->first[r->nfirst].index = i;
		r->first[r->nfirst].got = g;
		r->first[r->nfirst].want = w;
		r->nfirst++;
	}
	r->bad++;
}

/* a slice's sums and maxima, kept in locals while a block is judged
 * (through the part they would be stored and reloaded every element) */
struct acc {
	double num, den, maxabs, maxrel;
};

/* one element, as rt_elembad judges it: its finite case from the d and
 * |w| the sums use (one subtraction, not two: the branch a finite pair
 * takes is the one the loop predicts), and the relative maximum's
 * division made only where it may raise it (a margin far above the
 * rounding of d > maxrel * |w|, so the maximum is the same as dividing
 * at every element) */
static inline void
judge1(struct part *p, struct acc *s, int64_t i, double g, double w, double atol, double rtol)
{
	if (fabs(w) <= DBL_MAX && fabs(g) <= DBL_MAX) { /* both finite */
		double d = fabs(g - w), aw = fabs(w);
		s->num += d * d;
		s->den += w * w;
		s->maxabs = d > s->maxabs ? d : s->maxabs;
		if (d >= s->maxrel * aw * 0.999999 && aw != 0 && d / aw > s->maxrel)
			s->maxrel = d / aw;
		if (!(d <= atol + rtol * aw))
			elembad(&p->r, i, g, w);
	} else if (rt_elembad(g, w, atol, rtol)) {
		elembad(&p->r, i, g, w);
	}
}

static struct acc
accof(const struct part *p)
{
	struct acc s = { p->num, p->den, p->r.maxabs, p->r.maxrel };
	return s;
}

static void
accto(struct part *p, const struct acc *s)
{
	p->num = s->num;
	p->den = s->den;
	p->r.maxabs = s->maxabs;
	p->r.maxrel = s->maxrel;
}

/* the fused loops' two lanes: their sums added, their maxima taken, into the part */
static void
lanesto(struct part *p, struct acc *even, const struct acc *odd)
{
	even->num += odd->num;
	even->den += odd->den;
	even->maxabs = fmax(even->maxabs, odd->maxabs);
	even->maxrel = fmax(even->maxrel, odd->maxrel);
	accto(p, even);
}

/* elements [i0, i0 + n) of a slice, decoded (decode): f64 outputs, and
 * any against the oracle's (WANT_DTYPE); the rest go through the
 * one-pass loops below */
static void
compareblock(struct part *p, int64_t i0, int n, const double *gs, const double *ws)
{
	const double atol = p->a->atol, rtol = p->a->rtol;
	struct acc s = accof(p);

	for (int k = 0; k < n; k++)
		judge1(p, &s, i0 + k, gs[k], ws[k], atol, rtol);
	accto(p, &s);
}

/*
 * The common case in one pass, without decode's arrays: an output
 * against the reference's values (WANT_REF: floats for a float dtype,
 * the dtype itself for an integer one), with the values decode and
 * asoutput give (an i64's as rt_i64got reads it). The sums go in two
 * lanes, the even and the odd elements', added at the end: two chains
 * of additions, not one, which the loop waits on (1.6 to 1.75 times as
 * fast; the sums round differently in their last bits). Elements are
 * judged in order.
 */
#define FUSED(NAME, GOT, WANT) \
	static void NAME(struct part *p, int64_t from, int64_t to) \
	{ \
		const unsigned char *gp = p->got, *wp = p->want; \
		const double atol = p->a->atol, rtol = p->a->rtol; \
		const int dt = p->dt, narrow = narrowfloat(dt); \
		const float *f16 = f16values(); \
		struct acc even = accof(p), odd = { 0, 0, 0, 0 }; \
		(void)f16; \
		for (int64_t i = from; i < to; i++) { \
			double g, w; \
			GOT; \
			WANT; \
			if (narrow && !(fabs(w) < NARROW_SAFE)) /* asoutput's own test, its call kept out of the loop */ \
				w = asoutput(w, dt); \
			judge1(p, i & 1 ? &odd : &even, i, g, w, atol, rtol); \
		} \
		lanesto(p, &even, &odd); \
	}
/* element i of buffer b, of type T, as a double (unaligned: outputs of several dtypes share a buffer) */
#define AT(T, b, out) do { T v_; memcpy(&v_, (b) + (size_t)i * sizeof v_, sizeof v_); (out) = (double)v_; } while (0)
#define REFFLOAT AT(float, wp, w)
FUSED(fusedf32, AT(float, gp, g), REFFLOAT)
FUSED(fusedf16, { uint16_t h; memcpy(&h, gp + (size_t)i * 2, 2); g = f16[h]; }, REFFLOAT)
FUSED(fusedbf16, {
	uint16_t h;
	uint32_t u;
	float v;
	memcpy(&h, gp + (size_t)i * 2, 2);
	u = (uint32_t)h << 16;
	memcpy(&v, &u, 4);
	g = v;
}, REFFLOAT)
FUSED(fusede4m3, g = e4m3tab[gp[i]], REFFLOAT)
FUSED(fusede5m2, g = e5m2tab[gp[i]], REFFLOAT)
FUSED(fusedi8, AT(int8_t, gp, g), AT(int8_t, wp, w))
FUSED(fusedu8, AT(uint8_t, gp, g), AT(uint8_t, wp, w))
FUSED(fusedi16, AT(int16_t, gp, g), AT(int16_t, wp, w))
FUSED(fusedi32, AT(int32_t, gp, g), AT(int32_t, wp, w))
FUSED(fusedi64, g = rt_i64got(rt_i64at(gp, (size_t)i), rt_i64at(wp, (size_t)i)), w = (double)rt_i64at(wp, (size_t)i))
#undef REFFLOAT
#undef AT
#undef FUSED

/* the one-pass loop for an output of dtype dt against the reference's values, or NULL (f64: decode's blocks) */
static void (*fusedfor(int dt))(struct part *, int64_t, int64_t)
{
	switch (dt) {
	case DT_F32: return fusedf32;
	case DT_F16: return fusedf16;
	case DT_BF16: return fusedbf16;
	case DT_F8E4M3: return fusede4m3;
	case DT_F8E5M2: return fusede5m2;
	case DT_I8: return fusedi8;
	case DT_U8: return fusedu8;
	case DT_I16: return fusedi16;
	case DT_I32: return fusedi32;
	case DT_I64: return fusedi64;
	}
	return NULL;
}

enum { BLOCK = 4096 };

static void *
comparepart(void *arg)
{
	struct part *p = arg;
	int64_t i0;
	double gs[BLOCK], ws[BLOCK];

	if (p->wantas == WANT_REF && fusedfor(p->dt)) {
		fusedfor(p->dt)(p, p->from, p->to);
		return NULL;
	}
	for (i0 = p->from; i0 < p->to; i0 += BLOCK) {
		int n = p->to - i0 < BLOCK ? (int)(p->to - i0) : BLOCK;
		decode(p->got, p->dt, 0, i0, n, gs);
		decode(p->want, p->dt, p->wantas == WANT_REF, i0, n, ws);
		if (p->wantas == WANT_REF && narrowfloat(p->dt))
			for (int k = 0; k < n; k++)
				ws[k] = asoutput(ws[k], p->dt);
		if (p->dt == DT_I64) /* wrong past 2^53 too */
			for (int k = 0; k < n; k++)
				gs[k] = rt_i64got(rt_i64at(p->got, (size_t)(i0 + k)), rt_i64at(p->want, (size_t)(i0 + k)));
		compareblock(p, i0, n, gs, ws);
	}
	return NULL;
}

int64_t
comparestep(int64_t n)
{
	return n > 65536 ? n / 65536 : 1;
}

/* the expected values' RMS over the finite ones, every step-th of n (up
 * to 65536 evenly spaced: comparestep; it only sets a floor under the
 * absolute tolerance) */
static double
rms(const void *want, int dt, int wantas, int64_t n, int64_t step)
{
	double sum = 0;
	int64_t i, k = 0;

	for (i = 0; i < n; i += step) {
		double w = wantas == WANT_REF ? refvalue(want, dt, (size_t)i) : dtget(want, dt, (size_t)i);
		if (isfinite(w)) {
			sum += w * w;
			k++;
		}
	}
	return k ? sqrt(sum / (double)k) : 0;
}

static void
tolsfrom(double rmsval, const struct targ *a, double scale, struct targ *out)
{
	*out = *a;
	out->rtol *= scale;
	out->atol *= scale;
	out->rel_norm *= scale;
	out->atol = fmax(out->atol, out->rtol * rmsval / 10);
}

void
comparetols(const void *want, int dt, int wantas, int64_t n, const struct targ *a, double scale, struct targ *out)
{
	tolsfrom(rms(want, dt, wantas, n, comparestep(n)), a, scale, out);
}

void
comparetolssampled(const void *sample, int dt, int wantas, int64_t count, const struct targ *a, double scale,
                   struct targ *out)
{
	tolsfrom(rms(sample, dt, wantas, count, 1), a, scale, out);
}

void
comparefrom(int64_t n, const struct cmpsums *s, const struct targ *tols, struct cmpres *r)
{
	memset(r, 0, sizeof *r);
	r->n = n;
	r->bad = (int64_t)s->bad;
	r->relnorm = s->den > 0 ? sqrt(s->num / s->den) : sqrt(s->num);
	r->pass = s->bad == 0 && normok(s->num, s->den, tols);
}

void
compare(const void *got, int dt, const void *want, int wantas, int64_t n, const struct targ *a0, double scale,
        struct cmpres *r)
{
	struct part p[PARTS_MAX];
	struct targ a;
	int k, nt = partsfor((size_t)n, (size_t)1 << 20, PARTS_MAX);
	double num = 0, den = 0;

	pthread_once(&tabonce, maketables);
	comparetols(want, dt, wantas, n, a0, scale, &a);
	memset(r, 0, sizeof *r);
	r->n = n;
	for (k = 0; k < nt; k++) {
		memset(&p[k], 0, sizeof p[k]);
		p[k].got = got;
		p[k].want = want;
		p[k].dt = dt;
		p[k].wantas = wantas;
		p[k].a = &a;
		p[k].from = n / nt * k;
		p[k].to = k == nt - 1 ? n : n / nt * (k + 1);
	}
	runparts(comparepart, p, sizeof p[0], nt);
	/* the slices in order: the first mismatches are the lowest indexes */
	for (k = 0; k < nt; k++) {
		struct cmpres *s = &p[k].r;
		num += p[k].num;
		den += p[k].den;
		r->bad += s->bad;
		r->unwritten += s->unwritten;
		r->nonfinite += s->nonfinite;
		r->maxabs = fmax(r->maxabs, s->maxabs);
		r->maxrel = fmax(r->maxrel, s->maxrel);
		for (int j = 0; j < s->nfirst && r->nfirst < 5; j++)
			r->first[r->nfirst++] = s->first[j];
	}
	r->relnorm = den > 0 ? sqrt(num / den) : sqrt(num);
	r->pass = r->bad == 0 && normok(num, den, &a);
}

void
coords(int64_t index, const int64_t *dims, int ndims, char *out, size_t cap)
{
	int64_t c[MAXDIMS];
	int k;
	size_t len = 0;

	for (k = ndims - 1; k >= 0; k--) {
		c[k] = dims[k] ? index % dims[k] : 0;
		index = dims[k] ? index / dims[k] : 0;
	}
	len += (size_t)snprintf(out, cap, "[");
	for (k = 0; k < ndims && len < cap; k++)
		len += (size_t)snprintf(out + len, cap - len, "%s%lld", k ? ", " : "", (long long)c[k]);
	if (len < cap)
		snprintf(out + len, cap - len, "]");
}

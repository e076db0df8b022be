/* hidden.c - see hidden.h */
#include "hidden.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/json.h"
#include "../lib/sha.h"
#include "../lib/task.h"

/* the budget of the small cases: the CPU reference runs them all, per variant */
static const double SMALL_BYTES = 64.0 * 1024 * 1024, SMALL_FLOPS = 2e9, LARGE_BYTES = 4.0 * 1024 * 1024 * 1024;
enum { NRESIDUE = 16, TRIES = 200, NQUOT = 8, POOL = HIDDEN_POOL };

struct dom {
	size_t n;
	double lo[MAXSIZEARGS], hi[MAXSIZEARGS], mult[MAXSIZEARGS], base[MAXSIZEARGS];
	int fixed[MAXSIZEARGS], nfree;
	unsigned char le[MAXSIZEARGS][MAXSIZEARGS], dv[MAXSIZEARGS][MAXSIZEARGS];
	/* where a divides b: the listed quotients b / a (at most NQUOT; more: any) */
	double quot[MAXSIZEARGS][MAXSIZEARGS][NQUOT];
	unsigned char nquot[MAXSIZEARGS][MAXSIZEARGS];
	uint64_t rng;
	int slot;             /* drawing the pool: the slot its draws fill; else -1 */
	int tries;            /* a residue's draws before it gives up (fewer for a slot's later alternatives) */
};

/* q joins the quotients of (s, t) when new */
static void
addquot(struct dom *d, size_t s, size_t t, double q)
{
	int k;

	for (k = 0; k < d->nquot[s][t] && k < NQUOT; k++)
		if (d->quot[s][t][k] == q)
			return;
	if (d->nquot[s][t] < NQUOT)
		d->quot[s][t][d->nquot[s][t]] = q;
	if (d->nquot[s][t] <= NQUOT)
		d->nquot[s][t]++;
}

/* 1 when t / s is a listed quotient of theirs (or they had too many to keep) */
static int
quotok(const struct dom *d, size_t s, size_t t, double q)
{
	int k;

	if (d->nquot[s][t] > NQUOT)
		return 1;
	for (k = 0; k < d->nquot[s][t]; k++)
		if (d->quot[s][t][k] == q)
			return 1;
	return 0;
}

static uint64_t
next(struct dom *d)
{
	uint64_t z = d->rng += 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* a whole number in [lo, hi] */
static double
pick(struct dom *d, double lo, double hi)
{
	return hi <= lo ? lo : lo + (double)(next(d) % (uint64_t)(hi - lo + 1));
}

static double
gcd(double a, double b)
{
	while (b > 0) {
		double r = fmod(a, b);
		a = b;
		b = r;
	}
	return a;
}

static double
sizeof1(json_t *cs, const char *name)
{
	return (double)jint(json_object_get(cs, "sizes"), name, 0);
}

/* the domain the listed cases imply (hidden.h) */
static void
infer(const struct hiddenask *q, struct dom *d)
{
	json_t *lists[2] = { q->verify, q->bench }, *cs;
	size_t s, t, k, l, ncase = 0;

	memset(d, 0, sizeof *d);
	d->n = q->n;
	for (s = 0; s < d->n; s++) {
		d->lo[s] = INFINITY;
		d->base[s] = sizeof1(json_array_get(q->bench, 0), q->names[s]);
		for (t = 0; t < d->n; t++)
			d->le[s][t] = d->dv[s][t] = s != t;
	}
	for (l = 0; l < 2; l++)
		json_array_foreach(lists[l], k, cs) {
			ncase++;
			for (s = 0; s < d->n; s++) {
				double v = sizeof1(cs, q->names[s]);
				d->lo[s] = fmin(d->lo[s], v);
				d->hi[s] = fmax(d->hi[s], v);
				d->mult[s] = gcd(v, d->mult[s]);
				for (t = 0; t < d->n; t++) {
					double w = sizeof1(cs, q->names[t]);
					d->le[s][t] &= v <= w;
					d->dv[s][t] &= v > 0 && fmod(w, v) == 0;
					if (s != t && v > 0 && fmod(w, v) == 0)
						addquot(d, s, t, w / v);
				}
			}
		}
	for (s = 0; s < d->n; s++) {
		for (t = 0; t < d->n; t++) /* a quotient kept to a few values in many cases is a rule; else any */
			if (d->nquot[s][t] > 4 || 2 * (size_t)d->nquot[s][t] > ncase)
				d->nquot[s][t] = NQUOT + 1;
		d->fixed[s] = !ncase || d->lo[s] == d->hi[s];
		d->nfree += !d->fixed[s];
		if (d->mult[s] < 1)
			d->mult[s] = 1;
	}
}

/* 1 when v is in the domain: ranges, multiples, relations */
static int
holds(const struct dom *d, const double *v)
{
	size_t s, t;

	for (s = 0; s < d->n; s++) {
		if (v[s] < d->lo[s] || v[s] > d->hi[s] || fmod(v[s], d->mult[s]) != 0)
			return 0;
		for (t = 0; t < d->n; t++)
			if ((d->le[s][t] && v[s] > v[t]) ||
			    (d->dv[s][t] && (fmod(v[t], v[s]) != 0 || !quotok(d, s, t, v[t] / v[s]))))
				return 0;
	}
	return 1;
}

/* bend v towards the relations: equal sizes made equal, multiples made
 * multiples (by a listed quotient), an order kept by swapping */
static void
mend(struct dom *d, double *v)
{
	size_t s, t;

	for (s = 0; s < d->n; s++)
		for (t = 0; t < d->n; t++) {
			if (s == t || d->fixed[s] || d->fixed[t])
				continue;
			if (d->le[s][t] && d->le[t][s])
				v[t] = v[s];
			else if (d->dv[s][t] && d->nquot[s][t] <= NQUOT)
				v[t] = v[s] * d->quot[s][t][next(d) % d->nquot[s][t]];
			else if (d->dv[s][t])
				v[t] = v[s] * fmax(1, floor(v[t] / v[s]));
			else if (d->le[s][t] && v[s] > v[t]) {
				double x = v[s];
				v[s] = v[t];
				v[t] = x;
			}
		}
}

/* a small draw: free sizes below cap, multiple k of their mult with k
 * mod 16 == r (shifted per size), never a multiple of 64 where a size has room */
static void
small(struct dom *d, double cap, int r, double *v)
{
	size_t s;

	for (s = 0; s < d->n; s++) {
		double m = d->mult[s], klo = ceil(d->lo[s] / m), khi = floor(fmin(d->hi[s], fmax(cap, d->lo[s])) / m), k;
		if (d->fixed[s]) {
			v[s] = d->lo[s];
			continue;
		}
		k = pick(d, klo, khi);
		k = k - fmod(k, NRESIDUE) + (double)((r + 5 * (int)s) % NRESIDUE);
		if (fmod(k, 64) == 0)
			k += NRESIDUE;
		while (k > khi && k - NRESIDUE >= klo)
			k -= NRESIDUE;
		while (k < klo)
			k += NRESIDUE;
		v[s] = k * m;
	}
}

/* q->eval of v when it holds and fits; the case or NULL */
static json_t *
tryeval(const struct hiddenask *q, struct dom *d, double *v, double maxbytes, double maxflops)
{
	json_t *cs;

	mend(d, v);
	if (!holds(d, v) || !(cs = q->eval(q->ctx, v, maxbytes)))
		return NULL;
	if (jnum(cs, "flops", 0) > maxflops) {
		json_decref(cs);
		return NULL;
	}
	return cs;
}

/* one of the listed cases already has these sizes */
static int
listed(const struct hiddenask *q, json_t *out, const double *v)
{
	json_t *lists[3] = { q->verify, q->bench, out }, *cs;
	size_t l, k, s;

	for (l = 0; l < 3; l++)
		json_array_foreach(lists[l], k, cs) {
			for (s = 0; s < q->n && sizeof1(cs, q->names[s]) == v[s]; s++)
				;
			if (s == q->n)
				return 1;
		}
	return 0;
}

/* cs joins out unless its sizes are listed or already drawn; 1 when it did.
 * In the pool (d->slot >= 0) it carries its slot */
static int
add(const struct hiddenask *q, const struct dom *d, json_t *out, json_t *cs, const double *v)
{
	if (!cs)
		return 0;
	if (listed(q, out, v)) {
		json_decref(cs);
		return 0;
	}
	if (d->slot >= 0)
		json_object_set_new(cs, "slot", json_integer(d->slot));
	json_array_append_new(out, cs);
	return 1;
}

/* a small case of residue r (sizes shrink until it fits the budget) */
static void
residue(const struct hiddenask *q, struct dom *d, int r, json_t *out)
{
	double v[MAXSIZEARGS], cap = d->nfree == 1 ? 1 << 16 : d->nfree == 2 ? 1024 : d->nfree == 3 ? 256 : pow(1 << 24, 1.0 / d->nfree);
	int k;

	for (k = 0; k < d->tries; k++) {
		json_t *cs;
		small(d, cap, r, v);
		if ((cs = tryeval(q, d, v, SMALL_BYTES, SMALL_FLOPS)) && add(q, d, out, cs, v))
			return;
		if (k % 8 == 7)
			cap = fmax(4, cap / 2);
	}
}

/* the pool's slots so far */
static int
nslots(json_t *pool)
{
	json_t *last = json_array_get(pool, json_array_size(pool) - 1);

	return last ? (int)jint(last, "slot", 0) + 1 : 0;
}

/* free size s at 1, 2 and 3, the others small: a pool slot each, POOL
 * alternatives in it */
static void
degenerate(const struct hiddenask *q, struct dom *d, size_t s, json_t *out)
{
	double v[MAXSIZEARGS], want;
	int k, alt;

	for (want = 1; want <= 3; want++) {
		if (want < d->lo[s] || fmod(want, d->mult[s]) != 0)
			continue;
		d->slot = nslots(out);
		for (alt = 0; alt < POOL; alt++)
			for (k = 0; k < (alt ? TRIES / 8 : TRIES); k++) {
				json_t *cs;
				small(d, k < TRIES / 2 ? 64 : 8, k + alt * 7, v);
				v[s] = want;
				if ((cs = tryeval(q, d, v, SMALL_BYTES, SMALL_FLOPS)) && add(q, d, out, cs, v))
					break;
			}
	}
}

/* a ragged shape of about share of the bench case's elements: each free
 * size scaled by share^(1/free), then a few multiples off its own */
static void
ragged(const struct hiddenask *q, struct dom *d, double share, json_t *out)
{
	double v[MAXSIZEARGS], f = pow(share, 1.0 / (d->nfree ? d->nfree : 1));
	size_t s;
	int k;

	for (k = 0; k < TRIES; k++) {
		json_t *cs;
		for (s = 0; s < d->n; s++) {
			double m = d->mult[s], b = floor(d->base[s] * f / m);
			if (d->fixed[s] || b < 2) {
				v[s] = d->fixed[s] ? d->lo[s] : fmax(d->lo[s], b * m);
				continue;
			}
			b -= b >= 96 ? 1 + 2 * pick(d, 0, 23) : pick(d, 1, floor(b / 2));
			v[s] = fmax(b, 1) * m;
		}
		if ((cs = tryeval(q, d, v, LARGE_BYTES, INFINITY)) && add(q, d, out, cs, v))
			return;
	}
}

json_t *
hiddencases(const struct hiddenask *q, json_t **pool)
{
	json_t *out = json_array();
	struct dom d;
	char hex[65];
	struct sha sh;
	size_t s;
	int r, k;

	*pool = json_array();
	if (!q->n || !json_array_size(q->bench))
		return out;
	infer(q, &d);
	d.slot = -1;
	if (!d.nfree)
		return out;
	shainit(&sh);
	shaaddfield(&sh, "hidden");
	shaaddfield(&sh, q->vid);
	shahex(&sh, hex);
	hex[16] = 0;
	d.rng = strtoull(hex, NULL, 16);
	/* the pool: POOL alternatives a slot, a slot per residue and per small size */
	for (r = 0; r < NRESIDUE; r++)
		for (k = 0, d.slot = nslots(*pool); k < POOL; k++) {
			d.tries = k ? TRIES / 8 : TRIES;
			residue(q, &d, r, *pool);
		}
	for (s = 0; s < d.n; s++)
		if (!d.fixed[s] && nslots(*pool) < 24)
			degenerate(q, &d, s, *pool);
	d.slot = -1;
	ragged(q, &d, 1.0 / 8, out);
	ragged(q, &d, 1, out);
	return out;
}

/* stats.c - see stats.h */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

#include "../lib/util.h"

double
passatk(size_t n, size_t c, size_t k)
{
	double p = 1;
	size_t i;

	if (c > n || k > n || !k)
		return NAN;
	if (n - c < k)
		return 1;
	/* C(n-c, k) / C(n, k) as a product (no factorials to overflow) */
	for (i = n - c + 1; i <= n; i++)
		p *= 1 - (double)k / (double)i;
	return 1 - p;
}

uint64_t
splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

double
clusterstat(const struct cluster *c, const size_t *idx, size_t n, int r, int geo)
{
	double num = 0, den = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		num += c[idx ? idx[i] : i].num[r];
		den += c[idx ? idx[i] : i].den[r];
	}
	if (den <= 0)
		return NAN;
	return geo ? exp(num / den) : num / den;
}

static int
cmpdouble(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
bootci(const struct boot *b, const struct cluster *c, size_t n, double ci[2])
{
	size_t *idx, i, got = 0;
	double *d;
	uint64_t x = b->seed;
	int k;

	ci[0] = ci[1] = NAN;
	if (!n || b->resamples < 1)
		return -1;
	idx = xcalloc(n, sizeof *idx);
	d = xcalloc((size_t)b->resamples, sizeof *d);
	for (k = 0; k < b->resamples; k++) {
		double v;
		for (i = 0; i < n; i++)
			idx[i] = (size_t)((double)(splitmix(&x) >> 11) * 0x1p-53 * (double)n);
		v = clusterstat(c, idx, n, b->paired ? 1 : 0, b->geo);
		if (b->paired)
			v -= clusterstat(c, idx, n, 0, b->geo);
		if (!isnan(v))
			d[got++] = v;
	}
	if (got) {
		qsort(d, got, sizeof *d, cmpdouble);
		ci[0] = d[(size_t)floor((1 - b->level) / 2 * (double)(got - 1))];
		ci[1] = d[(size_t)ceil((1 + b->level) / 2 * (double)(got - 1))];
	}
	free(idx);
	free(d);
	return got ? 0 : -1;
}

/*
 * refrun.c - the CPU reference runner: prepare --reference builds it per
 * task variant with the spec's reference code and the generated call.c
 * (callreference), and verify --expected runs it in the sandbox. It reads
 * a plan of cases, draws each input exactly as the harness draws it on
 * the device (draw.h), calls the reference, and appends the outputs to
 * OUTFILE in the reference types. doc/verification.md (The reference
 * runner) gives the plan.
 *
 * usage: reference OUTFILE < PLAN
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* posix_memalign, madvise */
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "refrun.h"
#include "tensor.h"

enum { MAXT = REF_MAXT, MAXS = REF_MAXS };

/* n bytes; a large buffer in transparent huge pages where the kernel
 * has them (madvise mode): a fault and a clear per 2 MiB, not per 4 KiB */
static void *
bigalloc(size_t n)
{
	enum { THP_BYTES = 2 << 20 };
	void *p;

	if (n < 2 * (size_t)THP_BYTES)
		return malloc(n);
	if (posix_memalign(&p, THP_BYTES, n) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, n & ~(size_t)(THP_BYTES - 1), MADV_HUGEPAGE); /* advice only: without it, small pages */
#endif
	return p;
}

int
main(int argc, char **argv)
{
	FILE *out;
	char word[16];

	if (argc != 2) {
		fprintf(stderr, "usage: reference OUTFILE < PLAN\n");
		return 2;
	}
	out = fopen(argv[1], "wb");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	while (scanf("%15s", word) == 1) {
		static struct refcase rc;
		int nt, ns, nc, i, *kind = rc.kind, *dt = rc.dt;
		struct rt_dist d;
		long long *numel = rc.numel;
		double *scalars = rc.scalars;
		unsigned long long seed;
		int64_t *sizes = rc.sizes;
		void **ref = rc.ptrs;

		if (strcmp(word, "case") || scanf("%d", &nt) != 1 || nt < 0 || nt > MAXT)
			return 2;
		rc.nt = nt;
		for (i = 0; i < nt; i++) {
			size_t n;
			if (scanf("%d %d %lld %d %lf %lf %d %llu %lf %lf", &kind[i], &dt[i], &numel[i], &d.dist, &d.lo, &d.hi,
			          &d.special, &seed, &d.off, &d.scale) != 10 || dt[i] < 0 || dt[i] >= DT_COUNT || numel[i] < 0 ||
			    d.dist >= DIST_COUNT)
				return 2;
			n = (size_t)numel[i];
			ref[i] = bigalloc(n * (size_t)refsize(dt[i]) + 1);
			if (!ref[i]) {
				fprintf(stderr, "reference: out of memory\n");
				return 1;
			}
			if (kind[i] == 1) { /* NaN where the reference writes nothing (integers: 0) */
				size_t k;
				if (!dtinfos[dt[i]].isfloat)
					memset(ref[i], 0, n * (size_t)refsize(dt[i]));
				else if (dt[i] == DT_F64)
					for (k = 0; k < n; k++)
						((double *)ref[i])[k] = NAN;
				else
					for (k = 0; k < n; k++)
						((float *)ref[i])[k] = NAN;
			} else {
				/* drawn in place where the reference type is the dtype's own */
				int same = refsize(dt[i]) == dtinfos[dt[i]].size;
				void *raw = same ? ref[i] : bigalloc(n * (size_t)dtinfos[dt[i]].size + 1);
				size_t k;
				if (!raw)
					return 1;
				if (d.dist < 0) {
					for (k = 0; k < n; k++) {
						double v;
						if (scanf("%lf", &v) != 1)
							return 2;
						dtset(raw, dt[i], k, v);
					}
				} else {
					tensorfillpar(raw, dt[i], n, &d, seed);
				}
				if (!same) {
					toref(raw, dt[i], ref[i], n);
					free(raw);
				}
			}
		}
		if (scanf("%d", &ns) != 1 || ns < 0 || ns > MAXS)
			return 2;
		for (i = 0; i < ns; i++) {
			long long v;
			if (scanf("%lld", &v) != 1)
				return 2;
			sizes[i] = v;
		}
		if (scanf("%d", &nc) != 1 || nc < 0 || nc > MAXS)
			return 2;
		for (i = 0; i < nc; i++)
			if (scanf("%lf", &scalars[i]) != 1)
				return 2;
		for (i = 0; i < nt; i++) {
			if (scanf("%d", &rc.ndims[i]) != 1 || rc.ndims[i] < 1 || rc.ndims[i] > REF_MAXDIMS)
				return 2;
			for (int d = 0; d < rc.ndims[i]; d++) {
				long long v;
				if (scanf("%lld", &v) != 1 || v < 1)
					return 2;
				rc.dims[i][d] = v;
			}
		}
		rc.ns = ns;
		rc.nc = nc;
		callreference(&rc);
		for (i = 0; i < nt; i++) {
			if (kind[i] != 0 &&
			    fwrite(ref[i], (size_t)refsize(dt[i]), (size_t)numel[i], out) != (size_t)numel[i]) {
				perror(argv[1]);
				return 1;
			}
			free(ref[i]);
		}
		if (fflush(out) != 0) { /* each case whole in OUTFILE: verify --expected counts the cases done */
			perror(argv[1]);
			return 1;
		}
	}
	if (referencedone() < 0)
		return 3;
	if (fclose(out) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}

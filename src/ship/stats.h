/*
 * stats.h - the statistics of an evaluation (metrics): pass@k's unbiased
 * estimator, and percentile bootstrap intervals that resample clusters
 * (specs: a spec's variants are not independent problems) for a ratio
 * statistic, one run's or two runs' paired difference.
 *
 * A statistic is sum(num) / sum(den) over the chosen clusters, each
 * cluster's num and den the sums over its tasks: a mean over tasks
 * (num a task's value, den 1), or with STAT_GEO the exponential of it, a
 * geometric mean (num a log speedup, den 1 for each timed kernel).
 */
#ifndef RETORT_STATS_H
#define RETORT_STATS_H

#include <stddef.h>
#include <stdint.h>

/* 1 - C(n-c, k) / C(n, k) (Chen et al. 2021): that k of n samples, c correct, hold a correct one */
double passatk(size_t n, size_t c, size_t k);

/* splitmix64: a small generator whose sequence is the same everywhere */
uint64_t splitmix(uint64_t *state);

/* a cluster's part of a statistic, per run (0: the base, or the only run; 1: the new one) */
struct cluster {
	double num[2], den[2];
};

enum { STAT_MEAN = 0, STAT_GEO = 1 };

/* run r's statistic over the clusters idx[0..n) (repeats count again); NAN where their den sums to 0 */
double clusterstat(const struct cluster *c, const size_t *idx, size_t n, int r, int geo);

struct boot {
	int resamples;  /* how many */
	double level;   /* the interval's coverage, e.g. 0.95 */
	uint64_t seed;  /* the generator's start: the same clusters give the same interval */
	int geo;        /* STAT_MEAN or STAT_GEO */
	int paired;     /* 0: run 0's statistic; 1: run 1's minus run 0's, on the same resample */
};

/*
 * The percentile bootstrap interval of the statistic over n clusters:
 * resamples of n clusters drawn with replacement, the statistic of each
 * (those without a value left out), sorted; ci[0] the one at
 * floor((1 - level) / 2 * (m - 1)), ci[1] at ceil((1 + level) / 2 *
 * (m - 1)) of the m with a value. Returns 0, or -1 (ci NAN) when none has.
 */
int bootci(const struct boot *b, const struct cluster *c, size_t n, double ci[2]);

#endif

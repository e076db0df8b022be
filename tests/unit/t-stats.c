/* t-stats.c - an evaluation's statistics (src/ship/stats.c): pass@k's
 * estimator and the bootstrap over clusters (specs), against values worked
 * out by hand in the comments */
#include <math.h>

#include "../../src/ship/stats.h"
#include "../lib/tap.h"

static int
near(double got, double want)
{
	return fabs(got - want) < 1e-12;
}

static void
passk(void)
{
	/* n 3, c 2, k 1: 1 - C(1,1)/C(3,1) = 1 - 1/3 = 2/3 */
	ok(near(passatk(3, 2, 1), 2.0 / 3), "pass@1 of 2 correct in 3: 2/3");
	/* n 3, c 1, k 2: 1 - C(2,2)/C(3,2) = 1 - 1/3 = 2/3 */
	ok(near(passatk(3, 1, 2), 2.0 / 3), "pass@2 of 1 correct in 3: 2/3");
	/* n 10, c 3, k 2: 1 - C(7,2)/C(10,2) = 1 - 21/45 = 24/45 */
	ok(near(passatk(10, 3, 2), 24.0 / 45), "pass@2 of 3 correct in 10: 24/45");
	/* n 10, c 3, k 5: 1 - C(7,5)/C(10,5) = 1 - 21/252 = 11/12 */
	ok(near(passatk(10, 3, 5), 11.0 / 12), "pass@5 of 3 correct in 10: 11/12");
	ok(passatk(5, 0, 3) == 0 && passatk(5, 3, 3) == 1 && passatk(5, 5, 1) == 1, "none correct 0; n - c < k 1");
	ok(isnan(passatk(3, 1, 4)) && isnan(passatk(3, 1, 0)), "k above n, or 0: no value");
}

static void
bootstrap(void)
{
	/* spec A: 3 variants, all correct; spec B: 1 variant, wrong. The
	 * correct rate over the 4 tasks is 3/4. Resampling the 2 specs:
	 * {A,A} 6/6 = 1 (p 1/4), {A,B} 3/4 (p 1/2), {B,B} 0/2 = 0 (p 1/4):
	 * with 2000 resamples about 500 are 0 and 500 are 1, so the 95%
	 * interval's ends (indexes floor(0.025 * 1999) = 49 and
	 * ceil(0.975 * 1999) = 1950 of the sorted values) are 0 and 1. */
	struct cluster spec[2] = { { { 3, 0 }, { 3, 0 } }, { { 0, 0 }, { 1, 0 } } };
	/* the same 4 variants resampled as if independent: a mean of 4 draws
	 * of 1, 1, 1, 0. P(mean 0) = (1/4)^4 = 1/256 < 0.025 <= P(mean <=
	 * 1/4) = 1/256 + 4 (1/4)^3 (3/4) = 13/256 ~ 0.051: the lower end is
	 * 1/4; P(mean 1) = (3/4)^4 = 81/256 > 0.025: the upper end is 1 */
	struct cluster var[4] = { { { 1, 0 }, { 1, 0 } }, { { 1, 0 }, { 1, 0 } }, { { 1, 0 }, { 1, 0 } },
	                          { { 0, 0 }, { 1, 0 } } };
	struct boot b = { 2000, 0.95, 1, STAT_MEAN, 0 };
	double ci[2], again[2];
	int r;

	ok(near(clusterstat(spec, NULL, 2, 0, STAT_MEAN), 0.75), "the statistic over every cluster: 3/4");
	r = bootci(&b, spec, 2, ci);
	ok(r == 0 && ci[0] == 0 && ci[1] == 1, "resampling specs: [0, 1] (got [%g, %g])", ci[0],
	   ci[1]);
	r = bootci(&b, var, 4, ci);
	ok(r == 0 && near(ci[0], 0.25) && ci[1] == 1,
	   "resampling variants instead: [1/4, 1], too narrow (got [%g, %g])", ci[0], ci[1]);
	b.seed = 7;
	ok(bootci(&b, spec, 2, again) == 0 && again[0] == 0 && again[1] == 1, "another seed, the same ends here");

	/* paired: spec A's 3 variants go from wrong (base) to correct (new),
	 * spec B's one stays wrong; the difference is 3/4 - 0 = 3/4; on the
	 * same resample: {A,A} 1 - 0 = 1, {A,B} 3/4, {B,B} 0: [0, 1] */
	struct cluster pair[2] = { { { 0, 3 }, { 3, 3 } }, { { 0, 0 }, { 1, 1 } } };
	b.paired = 1;
	b.seed = 1;
	ok(near(clusterstat(pair, NULL, 2, 1, STAT_MEAN) - clusterstat(pair, NULL, 2, 0, STAT_MEAN), 0.75),
	   "the paired difference: 3/4");
	r = bootci(&b, pair, 2, ci);
	ok(r == 0 && ci[0] == 0 && ci[1] == 1, "its interval over specs: [0, 1] (got [%g, %g])",
	   ci[0], ci[1]);

	/* a geometric mean: spec A's kernels 2x and 8x (log 2 + log 8 over 2),
	 * spec B's 1x (log 1 over 1): over all, 16^(1/3); resamples {A,A} 4,
	 * {A,B} 16^(1/3), {B,B} 1: [1, 4] */
	struct cluster geo[2] = { { { log(2) + log(8), 0 }, { 2, 0 } }, { { 0, 0 }, { 1, 0 } } };
	struct boot g = { 2000, 0.95, 1, STAT_GEO, 0 };
	ok(near(clusterstat(geo, NULL, 2, 0, STAT_GEO), cbrt(16)), "geomean over the kernels: 16^(1/3)");
	r = bootci(&g, geo, 2, ci);
	ok(r == 0 && near(ci[0], 1) && near(ci[1], 4), "its interval over specs: [1, 4] (got [%g, %g])",
	   ci[0], ci[1]);

	/* no kernel timed anywhere: no value, no interval */
	struct cluster none[2] = { { { 0, 0 }, { 0, 0 } }, { { 0, 0 }, { 0, 0 } } };
	ok(isnan(clusterstat(none, NULL, 2, 0, STAT_GEO)) && bootci(&g, none, 2, ci) < 0 && isnan(ci[0]),
	   "nothing timed: no statistic, no interval");
}

int
main(void)
{
	passk();
	bootstrap();
	return done_testing();
}

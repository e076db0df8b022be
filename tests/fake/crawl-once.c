// expect: bench measured
// honest, but its first call in bench at the bench size takes 1.2 s (verify makes one before) and the rest are fast: timed in full, not cut as a crawler
#include <time.h>

static int seen;

void scale(const float *x, float *y, int n, float alpha)
{
	struct timespec ts = { 1, 200000000 };
	if (n == 65536 && ++seen == 2)
		nanosleep(&ts, NULL);
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
}

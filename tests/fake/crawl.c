// expect: bench measured
// honest, and crawling at the bench size alone (50 ms a call there): timed on 8 calls
#include <time.h>

void scale(const float *x, float *y, int n, float alpha)
{
	struct timespec ts = { 0, 50000000 };
	if (n == 65536)
		nanosleep(&ts, NULL);
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
}

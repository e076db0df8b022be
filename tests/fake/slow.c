// expect: bench measured
// honest, and slow: 150 ms a call, so that a verify holds its GPU lease a while (t0810)
#include <time.h>

void scale(const float *x, float *y, int n, float alpha)
{
	struct timespec ts = { 0, 150000000 };
	nanosleep(&ts, NULL);
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
}

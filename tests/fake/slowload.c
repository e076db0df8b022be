// expect: bench measured
// honest: right, but its shared object takes 2 s to load (a constructor
// that sleeps); a harness started before the GPU lease must load it only
// in the lease (t0800)
#include <time.h>

__attribute__((constructor)) static void
slowload(void)
{
	struct timespec t = { 2, 0 };

	nanosleep(&t, NULL);
}

void scale(const float *x, float *y, int n, float alpha)
{
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
}

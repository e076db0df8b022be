// expect: bench measured
// shrinks the harness's shared memory (descriptor 5) to nothing on every call: it is sealed, so the call fails and the candidate is timed as the honest one
#include <unistd.h>
void scale(const float *x, float *y, int n, float alpha)
{
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
	if (ftruncate(5, 0) == 0) /* would make the parent's reads fault (SIGBUS) */
		for (int i = 0; i < n; i++)
			y[i] = 0;
}

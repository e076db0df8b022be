// expect: verify mismatch
// result caching by input pointer: a second call on the same buffers returns the old outputs
#include <string.h>
static const float *seen[2];
static float saved[2][65536];
void scale(const float *x, float *y, int n, float alpha)
{
	for (int k = 0; k < 2; k++)
		if (seen[k] == x && n <= 65536) {
			memcpy(y, saved[k], (size_t)n * 4);
			return;
		}
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
	if (n <= 65536) {
		int k = seen[0] ? 1 : 0;
		seen[k] = x;
		memcpy(saved[k], y, (size_t)n * 4);
	}
}

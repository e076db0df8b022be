/* parts.c - see parts.h */
#include "parts.h"

#include <pthread.h>
#include <unistd.h>

int
partsfor(size_t n, size_t min, int max)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int k = cpus < 1 ? 1 : cpus > PARTS_MAX ? PARTS_MAX : (int)cpus;

	if (max < k)
		k = max;
	return n < min || k < 1 ? 1 : k;
}

void
runparts(void *(*fn)(void *), void *parts, size_t stride, int n)
{
	pthread_t th[PARTS_MAX];
	char *p = parts;
	int k, started;

	if (n > PARTS_MAX)
		n = PARTS_MAX;
	for (started = 1; started < n; started++)
		if (pthread_create(&th[started], NULL, fn, p + (size_t)started * stride) != 0)
			break;
	fn(p);
	for (k = started; k < n; k++)
		fn(p + (size_t)k * stride);
	while (--started > 0)
		pthread_join(th[started], NULL);
}

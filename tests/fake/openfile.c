// expect: verify violation
// reads a file from its host code (the lockdown refuses the open)
#include <fcntl.h>
#include <unistd.h>
void scale(const float *x, float *y, int n, float alpha)
{
	int fd = open("/etc/ld.so.cache", O_RDONLY);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
}

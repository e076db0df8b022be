// expect: verify crash
// turns its output file into a link to a host file, then crashes: the feedback must not show that file
#include <unistd.h>
void scale(const float *x, float *y, int n, float alpha)
{
	(void)x; (void)alpha;
	unlink("/work/output");
	symlink("../../../../../../etc/passwd", "/work/output"); /* resolved on the host: /etc/passwd */
	y[n] = *(volatile float *)0;
}

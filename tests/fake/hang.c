// expect: verify timeout
// never returns
void scale(const float *x, float *y, int n, float alpha)
{
	(void)x; (void)y; (void)n; (void)alpha;
	for (volatile int k = 0;; k++)
		;
}

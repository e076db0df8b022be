// expect: verify crash
// dereferences NULL
void scale(const float *x, float *y, int n, float alpha)
{
	(void)x; (void)alpha;
	y[n] = *(volatile float *)0;
}

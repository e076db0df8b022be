// expect: verify mismatch
// ignores alpha: it was always 2 before scalars were drawn
void scale(const float *x, float *y, int n, float alpha)
{
	(void)alpha;
	for (int i = 0; i < n; i++)
		y[i] = 2.0f * x[i] + 1.0f;
}

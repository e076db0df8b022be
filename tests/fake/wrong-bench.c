// expect: verify mismatch
// wrong only at the bench size: drops the + 1 past 10000 elements
void scale(const float *x, float *y, int n, float alpha)
{
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + (n > 10000 ? 0.0f : 1.0f);
}

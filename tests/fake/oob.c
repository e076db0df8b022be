// expect: verify out_of_bounds
// writes one element past the end
void scale(const float *x, float *y, int n, float alpha)
{
	for (int i = 0; i <= n; i++)
		y[i] = alpha * (i < n ? x[i] : 0) + 1.0f;
}

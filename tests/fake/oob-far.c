// expect: verify out_of_bounds
// writes one element 64 KiB past the end, past the first 4 KiB after it
void scale(const float *x, float *y, int n, float alpha)
{
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
	if (n <= 1000)
		y[n + 16384] = 0.0f;
}

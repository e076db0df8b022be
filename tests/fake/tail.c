// expect: verify mismatch
// leaves the last 64 elements unwritten
void scale(const float *x, float *y, int n, float alpha)
{
	for (int i = 0; i < n - (n > 100 ? 64 : 0); i++)
		y[i] = alpha * x[i] + 1.0f;
}

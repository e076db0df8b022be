// expect: bench mismatch
// honest for the first 60 calls (verify makes fewer), then cuts corners
static int calls;
void scale(const float *x, float *y, int n, float alpha)
{
	int m = ++calls > 60 ? n / 2 : n;
	for (int i = 0; i < m; i++)
		y[i] = alpha * x[i] + 1.0f;
}

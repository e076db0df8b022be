// expect: bench mismatch
// honest for the first 60 calls (verify makes fewer), then skips every other call: the kept sample may miss those, the two tail calls cannot
static int calls;
void scale(const float *x, float *y, int n, float alpha)
{
	if (++calls > 60 && calls % 2)
		return; /* the outputs keep the poison */
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
}

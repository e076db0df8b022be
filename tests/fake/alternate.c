// expect: bench mismatch
// honest until its 20th call in a row at one size (verify makes a few at each), then skips every other call: the kept sample may miss those, the two tail calls cannot
static int same, last = -1;
void scale(const float *x, float *y, int n, float alpha)
{
	same = n == last ? same + 1 : 1;
	last = n;
	if (same > 20 && same % 2)
		return; /* the outputs keep the poison */
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
}

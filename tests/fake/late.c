// expect: bench mismatch
// honest until its 20th call in a row at one size (verify makes a few at each; bench's warm-up, 20 or more timed calls and 2 tail calls make 25 or more), then cuts corners
static int same, last = -1;
void scale(const float *x, float *y, int n, float alpha)
{
	same = n == last ? same + 1 : 1;
	last = n;
	int m = same > 20 ? n / 2 : n;
	for (int i = 0; i < m; i++)
		y[i] = alpha * x[i] + 1.0f;
}

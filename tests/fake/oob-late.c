// expect: verify out_of_bounds
// writes one element past the end from its second size on, in a buffer an earlier size had
void scale(const float *x, float *y, int n, float alpha)
{
	static int sizes, last = -1;

	if (n != last) {
		sizes++;
		last = n;
	}
	for (int i = 0; i < n + (sizes >= 2); i++)
		y[i] = alpha * (i < n ? x[i] : 0) + 1.0f;
}

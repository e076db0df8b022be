/* the oracle for tests/fake's tasks: the baseline, on the CPU fake device */
void baseline(const float *x, float *y, int n, float alpha)
{
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
}

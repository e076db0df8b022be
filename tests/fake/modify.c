// expect: verify inputs_modified
// scribbles on its input
void scale(const float *x, float *y, int n, float alpha)
{
	for (int i = 0; i < n; i++)
		y[i] = alpha * x[i] + 1.0f;
	((float *)x)[0] = 0;
}

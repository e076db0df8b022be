// expect: bench invalid
// tampers with the harness timer from inside the process: every event time x 0.1
// (600 passes, some 20 ms a call; the fake device's "kernel" is CPU work,
// whose time a loaded two-CPU box stretches in proportion: hiding 90%
// stands above that spread where hiding 70% once did not, in the full tier)
void fake_scale_events(double f);
void scale(const float *x, float *y, int n, float alpha)
{
	fake_scale_events(0.1);
	for (int r = 0; r < 600; r++)
		for (int i = 0; i < n; i++)
			y[i] = alpha * x[i] + 1.0f;
}

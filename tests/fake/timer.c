// expect: bench invalid
// tampers with the harness timer from inside the process: every event time x 0.3
void fake_scale_events(double f);
void scale(const float *x, float *y, int n, float alpha)
{
	fake_scale_events(0.3);
	for (int r = 0; r < 200; r++)
		for (int i = 0; i < n; i++)
			y[i] = alpha * x[i] + 1.0f;
}

// expect: bench invalid
// tampers with the harness timer from inside the process: every event time x 0.3
// (600 passes: the 70% it hides, some 15 ms a call, stands well above a
// loaded two-CPU box's no-op noise, which reached ms in the full tier)
void fake_scale_events(double f);
void scale(const float *x, float *y, int n, float alpha)
{
	fake_scale_events(0.3);
	for (int r = 0; r < 600; r++)
		for (int i = 0; i < n; i++)
			y[i] = alpha * x[i] + 1.0f;
}

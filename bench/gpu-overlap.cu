// bench/gpu-overlap.cu - what another process's CUDA context costs a
// kernel being timed on the same GPU, and what a context's start and end
// cost themselves. A candidate's GPU time includes its harness's start
// (the CUDA context) and the harnesses' ends; they could leave the GPU
// lease only if they do not disturb the timed calls of the candidate that
// holds it, and only if they are not slower for it. Prints:
//   - a context's start by phase (cuInit, the primary context, 256 MiB),
//     and its end (from the exit asked to the process reaped), bare and
//     with the device fenced as the harness fences it (all but 8 GiB held
//     in halving pieces), alone; and a bare context's device memory (what
//     a context made beside a fenced candidate takes of its headroom);
//   - a timed kernel (memory-bound: 1 GiB in, 1 GiB out; compute-bound:
//     an FMA chain), each call as bench makes it (a 512 MiB memset as the
//     L2 flush, events around the kernel, a synchronize), for 2 s each:
//     quiet; beside an idle second context; beside a process that starts
//     and ends contexts back to back; beside one that also fences; beside
//     processes that only initialise the driver (cuInit), back to back;
//     the events' median, p90 and max, the median's shift, the host's
//     median per call (the parent's clock: before the opening event to
//     after the synchronize) and its shift, and the churning processes'
//     own start and end times.
// Not a timed test: on a GPU host,
//
//   nvcc -arch=sm_90 -O2 -o gpu-overlap bench/gpu-overlap.cu -lcuda && ./gpu-overlap
#include "gpubench.h"
#include <algorithm>
#include <cuda.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

enum { MAXP = 512 };

/* a context start, phase by phase (ms): cuInit, primary context, 256 MiB; with fence, all but 8 GiB held;
 * the device's free MiB once the context was made */
struct startms { double init, ctx, alloc, fence, freemb; };

/* in a fresh process (CUDA untouched): start a context, report, wait for a byte, exit */
static void
childstart(int rep, int go, int fenced)
{
	struct startms s;
	double t = ms();
	void *p;
	char c;

	CK((cudaError_t)cuInit(0));
	s.init = ms() - t;
	t = ms();
	CK(cudaFree(0));
	s.ctx = ms() - t;
	{
		size_t fr, tot;
		CK(cudaMemGetInfo(&fr, &tot));
		s.freemb = (double)fr / (1 << 20);
	}
	t = ms();
	CK(cudaMalloc(&p, 256u << 20));
	CK(cudaMemset(p, 1, 256u << 20));
	CK(cudaDeviceSynchronize());
	s.alloc = ms() - t;
	t = ms();
	if (fenced) {
		static void *piece[MAXP];
		fence((size_t)8 << 30, 0, piece, MAXP);
	}
	s.fence = ms() - t;
	if (write(rep, &s, sizeof s) != sizeof s || read(go, &c, 1) != 1)
		_exit(1);
	_exit(0); /* the driver ends the context as the process goes */
}

/* one context's life in a child; its start phases, and its end (exit asked to reaped) in *end */
static struct startms
onecontext(int fenced, double *end)
{
	int rep[2], go[2], st;
	struct startms s;
	pid_t pid;
	double t;

	if (pipe(rep) < 0 || pipe(go) < 0)
		exit(1);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(rep[0]);
		close(go[1]);
		childstart(rep[1], go[0], fenced);
	}
	close(rep[1]);
	close(go[0]);
	if (read(rep[0], &s, sizeof s) != sizeof s) {
		fprintf(stderr, "gpu-overlap: a context child failed\n");
		exit(1);
	}
	t = ms();
	if (write(go[1], "x", 1) != 1 || waitpid(pid, &st, 0) != pid)
		exit(1);
	*end = ms() - t;
	close(rep[0]);
	close(go[1]);
	return s;
}

/* a bare context's device memory (MiB): two children, the second making its context while the first,
 * which made its own and 256 MiB, lives */
static double
contextmb(void)
{
	int rep[2][2], go[2][2];
	struct startms s[2];
	pid_t pid[2];

	for (int i = 0; i < 2; i++) {
		if (pipe(rep[i]) < 0 || pipe(go[i]) < 0)
			exit(1);
		fflush(stdout);
		if ((pid[i] = fork()) == 0) {
			close(rep[i][0]);
			close(go[i][1]);
			childstart(rep[i][1], go[i][0], 0);
		}
		close(rep[i][1]);
		close(go[i][0]);
		if (read(rep[i][0], &s[i], sizeof s[i]) != sizeof s[i]) {
			fprintf(stderr, "gpu-overlap: a context child failed\n");
			exit(1);
		}
	}
	for (int i = 0; i < 2; i++) {
		if (write(go[i][1], "x", 1) != 1 || waitpid(pid[i], NULL, 0) != pid[i])
			exit(1);
		close(rep[i][0]);
		close(go[i][1]);
	}
	return s[0].freemb - s[1].freemb - 256;
}

/* the stressor: until SIGTERM, contexts back to back (mode 1; mode 2 fenced too), or one idle (mode 0),
 * or processes that only run cuInit (mode 3); it reports each one's start (init + ctx + alloc + fence)
 * and end on out */
static volatile sig_atomic_t stop;
static void onterm(int s) { (void)s; stop = 1; }

static void
stressor(int mode, int out)
{
	signal(SIGTERM, onterm);
	if (mode == 0) { /* an idle context with 256 MiB: what a waiting harness would be */
		void *p;
		CK(cudaFree(0));
		CK(cudaMalloc(&p, 256u << 20));
		while (!stop)
			pause();
		_exit(0);
	}
	while (!stop && mode == 3) {
		double t = ms(), v[2];
		pid_t pid;
		int st;
		fflush(stdout);
		if ((pid = fork()) == 0)
			_exit(cuInit(0) != CUDA_SUCCESS);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			_exit(1);
		v[0] = ms() - t;
		v[1] = 0;
		if (write(out, v, sizeof v) != sizeof v)
			_exit(1);
	}
	while (!stop) {
		double end, v[2];
		struct startms s = onecontext(mode == 2, &end);
		v[0] = s.init + s.ctx + s.alloc + s.fence;
		v[1] = end;
		if (write(out, v, sizeof v) != sizeof v)
			_exit(1);
	}
	_exit(0);
}

__global__ void
membound(const float *x, float *y, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		y[i] = 2 * x[i] + 1;
}

__global__ void
fmabound(float *y, int iters)
{
	float a = threadIdx.x, b = 1.0001f, c = 0.999f;
	for (int i = 0; i < iters; i++) {
		a = fmaf(a, b, c);
		b = fmaf(b, c, a * 1e-9f);
	}
	y[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
}

/* the timer: calls for secs seconds, as bench makes them; the events' times in ms, and the host's (from
 * before the opening event to after the synchronize) in *host */
static std::vector<double>
timed(int kind, double secs, float *x, float *y, void *flush, size_t n, std::vector<double> *host)
{
	std::vector<double> v;
	cudaEvent_t a, b;
	double t0 = ms();
	int sms;

	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	while (ms() - t0 < secs * 1e3) {
		float e;
		CK(cudaMemset(flush, v.size() & 0xff, 512u << 20));
		CK(cudaDeviceSynchronize());
		double h = ms();
		CK(cudaEventRecord(a));
		if (kind == 0)
			membound<<<sms * 8, 256>>>(x, y, n);
		else
			fmabound<<<sms * 8, 256>>>(y, 20000);
		CK(cudaEventRecord(b));
		CK(cudaDeviceSynchronize());
		host->push_back(ms() - h);
		CK(cudaEventElapsedTime(&e, a, b));
		v.push_back(e);
	}
	return v;
}

static double
pct(std::vector<double> v, double p)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[(size_t)(p * (v.size() - 1))];
}

int
main(void)
{
	enum { NMODE = 4 };
	const char *modes[NMODE] = { "beside an idle context", "beside contexts started and ended",
	                             "beside fenced contexts started and ended", "beside cuInit alone, again and again" };
	int rep[2][NMODE][2];
	pid_t pids[2][NMODE];
	double end;

	printf("# a context's start and end, alone (ms)\n");
	for (int fenced = 0; fenced < 2; fenced++)
		for (int i = 0; i < 3; i++) {
			struct startms s = onecontext(fenced, &end);
			printf("%-9s cuInit %6.1f  context %6.1f  256 MiB %6.1f  fence %6.1f  end %6.1f\n",
			       fenced ? "fenced" : "bare", s.init, s.ctx, s.alloc, s.fence, end);
		}
	for (int i = 0; i < 3; i++)
		printf("a bare context's device memory: %.0f MiB\n", contextmb());
	/* the stressors, one per mode and timed kernel, forked before this process touches CUDA; each
	 * waits stopped until its turn */
	for (int k = 0; k < 2; k++)
		for (int m = 0; m < NMODE; m++) {
			if (pipe(rep[k][m]) < 0)
				return 1;
			fflush(stdout);
			if ((pids[k][m] = fork()) == 0) {
				close(rep[k][m][0]);
				raise(SIGSTOP);
				stressor(m, rep[k][m][1]);
			}
			close(rep[k][m][1]);
		}
	size_t n = (size_t)1 << 28;
	float *x, *y;
	void *flush;
	CK(cudaMalloc(&x, n * 4));
	CK(cudaMalloc(&y, n * 4));
	CK(cudaMalloc(&flush, 512u << 20));
	CK(cudaMemset(x, 0x3f, n * 4));
	printf("\n%-44s %-8s %9s %9s %9s %7s %9s %7s %6s %14s\n", "timed kernel", "", "median", "p90", "max", "shift",
	       "host med", "shift", "calls", "their start/end");
	for (int kind = 0; kind < 2; kind++) {
		const char *kn = kind ? "FMA chain" : "1 GiB in, 1 GiB out";
		std::vector<double> qh, vh;
		timed(kind, 0.3, x, y, flush, n, &qh); /* warm */
		qh.clear();
		std::vector<double> q = timed(kind, 2, x, y, flush, n, &qh);
		double qm = pct(q, 0.5), qhm = pct(qh, 0.5);
		printf("%-44s %-8s %9.4f %9.4f %9.4f %6.2f%% %9.4f %6.2f%% %6zu\n", kn, "quiet", qm, pct(q, 0.9),
		       pct(q, 1), 0.0, qhm, 0.0, q.size());
		for (int m = 0; m < NMODE; m++) {
			int st;
			kill(pids[kind][m], SIGCONT);
			usleep(300000); /* the idle one has its context by then; the churn is under way */
			vh.clear();
			std::vector<double> v = timed(kind, 2, x, y, flush, n, &vh);
			kill(pids[kind][m], SIGTERM); /* a churn ends its context in hand first */
			waitpid(pids[kind][m], &st, 0);
			char what[64];
			snprintf(what, sizeof what, "  %s", modes[m]);
			printf("%-44s %-8s %9.4f %9.4f %9.4f %6.2f%% %9.4f %6.2f%% %6zu", what, "", pct(v, 0.5), pct(v, 0.9),
			       pct(v, 1), 100 * (pct(v, 0.5) / qm - 1), pct(vh, 0.5), 100 * (pct(vh, 0.5) / qhm - 1),
			       v.size());
			if (m > 0) { /* the churning contexts' own figures */
				std::vector<double> s, e;
				double r[2];
				fcntl(rep[kind][m][0], F_SETFL, O_NONBLOCK);
				while (read(rep[kind][m][0], r, sizeof r) == sizeof r) {
					s.push_back(r[0]);
					e.push_back(r[1]);
				}
				printf(" %6.1f/%5.1f (%zu)", pct(s, 0.5), pct(e, 0.5), s.size());
			}
			printf("\n");
			fflush(stdout);
		}
	}
	return 0;
}

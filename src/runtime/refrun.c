/*
 * refrun.c - the CPU reference runner: prepare --reference builds it per
 * task variant with the spec's reference code and the generated call.c
 * (callreference), and verify --expected runs it in the sandbox. It reads
 * a plan of cases, draws each input exactly as the harness draws it on
 * the device (draw.h), calls the reference, and writes the outputs to
 * OUTFILE in the reference types, case after case, each whole before the
 * next. A C reference's cases run in forked children, several at once;
 * a Python one's here, one at a time. doc/verification.md (The reference
 * runner) gives the plan and the order.
 *
 * usage: reference OUTFILE < PLAN
 *
 * Exit status: 0 every case written; 1 out of memory, cannot write or
 * cannot start a case;
 * 2 a bad plan; 3 the Python reference failed; a failed case's own status
 * (128 + a signal's number where one killed it).
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* posix_memalign, madvise */
#endif
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "refrun.h"
#include "tensor.h"

enum { MAXT = REF_MAXT, MAXS = REF_MAXS, MAXPAR = 16 };

/* one case of the plan: read, run, written */
struct pcase {
	struct refcase rc;
	struct rt_dist d[MAXT];
	unsigned long long seed[MAXT];
	void *vals[MAXT];   /* a listed tensor's values in its dtype, else NULL */
	off_t at;           /* where its outputs go in OUTFILE */
	size_t bytes;       /* the memory its tensors take */
	pid_t pid;          /* its child, while it runs */
	int go, done;       /* this side's ends of the pipes to and from it */
	int state;          /* WAITING, RUNNING, FAILED, DONE */
	int status;         /* a failed child's exit status, 128 + a signal's */
	int company;        /* it ran beside another case */
};
enum { WAITING, RUNNING, FAILED, DONE };

/* the cases read and not yet written, in the plan's order */
static struct pcase *q[MAXPAR];
static int nq;

/* n bytes; a large buffer in transparent huge pages where the kernel
 * has them (madvise mode): a fault and a clear per 2 MiB, not per 4 KiB */
static void *
bigalloc(size_t n)
{
	enum { THP_BYTES = 2 << 20 };
	void *p;

	if (n < 2 * (size_t)THP_BYTES)
		return malloc(n);
	if (posix_memalign(&p, THP_BYTES, n) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, n & ~(size_t)(THP_BYTES - 1), MADV_HUGEPAGE); /* advice only: without it, small pages */
#endif
	return p;
}

/* the next case of the plan into p: 1, 0 at its end, or an exit status */
static int
readcase(struct pcase *p)
{
	struct refcase *rc = &p->rc;
	char word[16];
	int i, nt, ns, nc;

	if (scanf("%15s", word) != 1)
		return 0;
	if (strcmp(word, "case") || scanf("%d", &nt) != 1 || nt < 0 || nt > MAXT)
		return 2;
	rc->nt = nt;
	for (i = 0; i < nt; i++) {
		struct rt_dist *d = &p->d[i];
		size_t n, k;
		if (scanf("%d %d %lld %d %lf %lf %d %llu %lf %lf", &rc->kind[i], &rc->dt[i], &rc->numel[i], &d->dist,
		          &d->lo, &d->hi, &d->special, &p->seed[i], &d->off, &d->scale) != 10 || rc->dt[i] < 0 ||
		    rc->dt[i] >= DT_COUNT || rc->numel[i] < 0 || d->dist >= DIST_COUNT)
			return 2;
		n = (size_t)rc->numel[i];
		p->bytes += n * (size_t)refsize(rc->dt[i]);
		if (rc->kind[i] == 1 || d->dist >= 0)
			continue;
		/* listed values, read here: the plan is this process's */
		if (!(p->vals[i] = bigalloc(n * (size_t)dtinfos[rc->dt[i]].size + 1))) {
			fprintf(stderr, "reference: out of memory\n");
			return 1;
		}
		p->bytes += n * (size_t)dtinfos[rc->dt[i]].size;
		for (k = 0; k < n; k++) {
			double v;
			if (scanf("%lf", &v) != 1)
				return 2;
			dtset(p->vals[i], rc->dt[i], k, v);
		}
	}
	if (scanf("%d", &ns) != 1 || ns < 0 || ns > MAXS)
		return 2;
	for (i = 0; i < ns; i++) {
		long long v;
		if (scanf("%lld", &v) != 1)
			return 2;
		rc->sizes[i] = v;
	}
	if (scanf("%d", &nc) != 1 || nc < 0 || nc > MAXS)
		return 2;
	for (i = 0; i < nc; i++)
		if (scanf("%lf", &rc->scalars[i]) != 1)
			return 2;
	for (i = 0; i < nt; i++) {
		if (scanf("%d", &rc->ndims[i]) != 1 || rc->ndims[i] < 1 || rc->ndims[i] > REF_MAXDIMS)
			return 2;
		for (int d = 0; d < rc->ndims[i]; d++) {
			long long v;
			if (scanf("%lld", &v) != 1 || v < 1)
				return 2;
			rc->dims[i][d] = v;
		}
	}
	rc->ns = ns;
	rc->nc = nc;
	return 1;
}

/* the bytes of p's outputs in OUTFILE */
static off_t
outbytes(const struct pcase *p)
{
	off_t n = 0;

	for (int i = 0; i < p->rc.nt; i++)
		if (p->rc.kind[i] != 0)
			n += (off_t)p->rc.numel[i] * refsize(p->rc.dt[i]);
	return n;
}

/* p's inputs drawn and its outputs computed: 0, or 1 out of memory */
static int
compute(struct pcase *p)
{
	struct refcase *rc = &p->rc;

	for (int i = 0; i < rc->nt; i++) {
		int dt = rc->dt[i];
		size_t n = (size_t)rc->numel[i];
		if (!(rc->ptrs[i] = bigalloc(n * (size_t)refsize(dt) + 1))) {
			fprintf(stderr, "reference: out of memory\n");
			return 1;
		}
		if (rc->kind[i] == 1)
			tensorunwritten(rc->ptrs[i], dt, n);
		else if (p->vals[i])
			toref(p->vals[i], dt, rc->ptrs[i], n);
		else
			tensorfillref(rc->ptrs[i], dt, n, &p->d[i], p->seed[i]);
	}
	callreference(rc);
	return 0;
}

/* p's outputs into OUTFILE at p->at: 0, or -1 (said) */
static int
writeout(int fd, const char *path, struct pcase *p)
{
	off_t at = p->at;

	for (int i = 0; i < p->rc.nt; i++) {
		const char *s = p->rc.ptrs[i];
		size_t n = (size_t)p->rc.numel[i] * (size_t)refsize(p->rc.dt[i]);
		if (p->rc.kind[i] == 0)
			continue;
		while (n > 0) {
			ssize_t w = pwrite(fd, s, n, at);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				perror(path);
				return -1;
			}
			s += w, n -= (size_t)w, at += w;
		}
	}
	return 0;
}

static void
freecase(struct pcase *p)
{
	for (int i = 0; i < p->rc.nt; i++) {
		free(p->rc.ptrs[i]);
		free(p->vals[i]);
	}
	free(p);
}

/* a Python reference's cases (its one interpreter is this process's): here, one at a time */
static int
inprocess(int fd, const char *path)
{
	off_t at = 0;
	int r;

	for (;;) {
		struct pcase *p = calloc(1, sizeof *p);
		if (!p)
			return 1;
		if ((r = readcase(p)) != 1 || (r = compute(p)) != 0) {
			freecase(p);
			return r;
		}
		p->at = at;
		at += outbytes(p);
		if (writeout(fd, path, p) < 0)
			return 1;
		freecase(p);
	}
}

/* the memory the cases running at once may take: half the address space
 * the jail allows and half the host's; a case over it runs alone */
static size_t
memcap(void)
{
	struct rlimit as;
	double cap = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) / 2;

	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY && (double)as.rlim_cur / 2 < cap)
		cap = (double)as.rlim_cur / 2;
	return cap > 0 ? (size_t)cap : 0;
}

/* q[k] in a child: computed at once, written when told (its turn) */
static int
start(int k, int fd, const char *path)
{
	struct pcase *p = q[k];
	int go[2], done[2];
	char c;

	if (pipe(go) < 0)
		return -1;
	if (pipe(done) < 0) {
		close(go[0]), close(go[1]);
		return -1;
	}
	for (int i = 0; i < 2; i++) /* not in what the reference may run */
		fcntl(go[i], F_SETFD, FD_CLOEXEC), fcntl(done[i], F_SETFD, FD_CLOEXEC);
	fflush(stdout);
	if ((p->pid = fork()) < 0) {
		int e = errno;
		close(go[0]), close(go[1]), close(done[0]), close(done[1]);
		errno = e;
		return -1;
	}
	if (p->pid > 0) {
		close(go[0]), close(done[1]);
		p->go = go[1], p->done = done[0];
		p->state = RUNNING;
		return 0;
	}
	for (int j = 0; j < nq; j++)
		if (j != k && q[j]->state == RUNNING)
			close(q[j]->go), close(q[j]->done);
	close(go[1]), close(done[0]);
	signal(SIGPIPE, SIG_DFL); /* the reference as the runner alone would run it */
	/* the plan is the parent's: no exit here may move its offset */
	close(0);
	if (compute(p) != 0)
		_exit(1);
	if (read(go[0], &c, 1) != 1) /* not its turn after all */
		_exit(1);
	if (writeout(fd, path, p) < 0)
		_exit(1);
	fflush(stdout);
	_exit(write(done[1], "d", 1) == 1 ? 0 : 1);
}

/* stop every case still running: an exit status, or a failed case's */
static int
stopall(int rc)
{
	for (int k = 0; k < nq; k++)
		if (q[k]->state == RUNNING) {
			kill(q[k]->pid, SIGKILL);
			waitpid(q[k]->pid, NULL, 0);
			close(q[k]->go), close(q[k]->done);
			q[k]->state = FAILED;
		}
	return rc;
}

/* the child that ended: its case DONE, or FAILED with its status; -1
 * when there is none to wait for */
static int
reap(size_t *inuse, int *nrun, int *seq)
{
	int st, k;
	pid_t pid;
	char c;

	while ((pid = waitpid(-1, &st, 0)) < 0 && errno == EINTR)
		;
	if (pid < 0)
		return -1;
	for (k = 0; k < nq && !(q[k]->state == RUNNING && q[k]->pid == pid); k++)
		;
	if (k == nq)
		return 0;
	(*nrun)--;
	*inuse -= q[k]->bytes;
	q[k]->state = read(q[k]->done, &c, 1) == 1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? DONE : FAILED;
	q[k]->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	close(q[k]->go), close(q[k]->done);
	if (q[k]->state == FAILED && q[k]->company) {
		/* maybe its neighbours' memory: it runs again alone, and so does
		 * every case from here on; the later ones start again after it */
		*seq = 1;
		for (int j = k + 1; j < nq; j++)
			if (q[j]->state == RUNNING)
				kill(q[j]->pid, SIGKILL);
	}
	return 0;
}

/*
 * A C reference's cases, up to par at once within memcap, each in a child
 * that computes, then writes when every earlier case is written (its
 * "go"): OUTFILE grows case by case in the plan's order, as verify reads
 * it. A case that fails beside others runs again alone before its failure
 * counts; a case that fails alone ends the run with its status, OUTFILE
 * cut where its outputs would begin.
 */
static int
forked(int fd, const char *path, int par)
{
	size_t inuse = 0, cap = memcap();
	int nrun = 0, eof = 0, seq = 0, r, k;
	off_t at = 0;

	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		if (!eof && nq < par) {
			struct pcase *p = calloc(1, sizeof *p);
			if (!p)
				return stopall(1);
			if ((r = readcase(p)) != 1) {
				freecase(p);
				if (r != 0)
					return stopall(r);
				eof = 1;
			} else {
				p->at = at;
				at += outbytes(p);
				q[nq++] = p;
			}
			continue;
		}
		for (k = 0; k < nq; k++) {
			struct pcase *p = q[k];
			if (p->state == RUNNING || p->state == DONE)
				continue;
			/* a failed case waits for its turn at the head, to run again
			 * alone or to end the run: no case after it starts before */
			if (p->state == FAILED && (k > 0 || !p->company))
				break;
			if (nrun && (seq || inuse + p->bytes > cap))
				break;
			if (start(k, fd, path) < 0) {
				if (!nrun) {
					perror("reference: cannot start a case");
					return stopall(1);
				}
				seq = 1; /* no process or pipe to spare: one at a time, once one ends */
				break;
			}
			p->company = nrun > 0;
			for (int j = 0; j < nq; j++)
				if (q[j]->state == RUNNING)
					q[j]->company |= p->company;
			nrun++;
			inuse += p->bytes;
		}
		if (nq && q[0]->state == RUNNING && q[0]->go >= 0) { /* its turn to write */
			ssize_t w = write(q[0]->go, "g", 1); /* a child that ended already is reaped below */
			(void)w;
			close(q[0]->go);
			q[0]->go = -1;
			continue;
		}
		if (nq && q[0]->state == DONE) {
			freecase(q[0]);
			memmove(q, q + 1, (size_t)--nq * sizeof *q);
			continue;
		}
		if (nq && q[0]->state == FAILED && !q[0]->company) {
			r = q[0]->status;
			stopall(0);
			if (ftruncate(fd, q[0]->at) < 0)
				perror(path);
			if (r == 0)
				fprintf(stderr, "reference: a case ended before its outputs were written (exit status 0)\n");
			return r ? r : 1;
		}
		if (!nq && eof)
			return 0;
		if (reap(&inuse, &nrun, &seq) < 0) {
			perror("reference: waiting for a case");
			return stopall(1);
		}
	}
}

int
main(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int fd, r;

	if (argc != 2) {
		fprintf(stderr, "usage: reference OUTFILE < PLAN\n");
		return 2;
	}
	if ((fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
		perror(argv[1]);
		return 1;
	}
#ifdef REFRUN_PAR
	cpus = REFRUN_PAR; /* a test's runner: so many cases at once, whatever the CPUs */
#endif
	r = referenceforks() ? forked(fd, argv[1], cpus < 1 ? 1 : cpus > MAXPAR ? MAXPAR : (int)cpus)
	                     : inprocess(fd, argv[1]);
	if (r != 0)
		return r;
	if (referencedone() < 0)
		return 3;
	if (close(fd) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}

/*
 * pycall.c - the reference runner's call of a Python reference: on the
 * first case it starts the references' interpreter (JAILVENV/bin/python,
 * in the same sandbox) on src/runtime/pyref.py, sends the header (the
 * reference's code and the parameters, pyref_header) and then, per case,
 * the shapes, sizes, scalars and raw input buffers in the reference
 * types; it reads the outputs back into the case's out and inout tensors.
 * prepare --reference generates pyref_runner (pyref.py's text) and
 * pyref_header into call.c.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "refrun.h"
#include "tensor.h"

extern const char pyref_runner[], pyref_header[], pyref_python[];

static pid_t child;
static FILE *to, *from;

static void
start(void)
{
	int in[2], out[2];

	signal(SIGPIPE, SIG_IGN); /* a reference that died is said below, not by a signal */
	if (pipe(in) < 0 || pipe(out) < 0 || (child = fork()) < 0) {
		fprintf(stderr, "reference: cannot start Python: %s\n", strerror(errno));
		exit(1);
	}
	if (child == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]); close(in[1]); close(out[0]); close(out[1]);
		execl(pyref_python, pyref_python, "-I", "-B", "-c", pyref_runner, (char *)NULL);
		fprintf(stderr, "reference: cannot run '%s': %s\n", pyref_python, strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	to = fdopen(in[1], "wb");
	from = fdopen(out[0], "rb");
	if (!to || !from || fputs(pyref_header, to) < 0) {
		fprintf(stderr, "reference: cannot talk to Python\n");
		exit(1);
	}
}

/* the child's end: its exit status, said when it is not 0 */
static int
reap(void)
{
	int st;

	if (to)
		fclose(to);
	to = NULL;
	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st))
		fprintf(stderr, "reference: Python was killed by signal %d (%s)\n", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		fprintf(stderr, "reference: the Python reference failed (exit status %d)\n", WEXITSTATUS(st));
	return -1;
}

void
callreference(const struct refcase *c)
{
	int i, d;

	if (!child)
		start();
	fprintf(to, "case %d", c->nt);
	for (i = 0; i < c->nt; i++) {
		fprintf(to, " %d %d", c->kind[i], c->ndims[i]);
		for (d = 0; d < c->ndims[i]; d++)
			fprintf(to, " %lld", (long long)c->dims[i][d]);
	}
	fprintf(to, " %d", c->ns);
	for (i = 0; i < c->ns; i++)
		fprintf(to, " %lld", (long long)c->sizes[i]);
	fprintf(to, " %d", c->nc);
	for (i = 0; i < c->nc; i++)
		fprintf(to, " %.17g", c->scalars[i]);
	fputc('\n', to);
	for (i = 0; i < c->nt; i++)
		if (c->kind[i] != 1 && fwrite(c->ptrs[i], (size_t)refsize(c->dt[i]), (size_t)c->numel[i], to) !=
		                           (size_t)c->numel[i])
			break;
	if (i < c->nt || fflush(to) != 0) {
		reap();
		exit(3);
	}
	for (i = 0; i < c->nt; i++)
		if (c->kind[i] != 0 && fread(c->ptrs[i], (size_t)refsize(c->dt[i]), (size_t)c->numel[i], from) !=
		                           (size_t)c->numel[i]) {
			if (reap() == 0)
				fprintf(stderr, "reference: Python ended before the case's outputs\n");
			exit(3);
		}
}

int
referencedone(void)
{
	return child ? reap() : 0;
}

int
referenceforks(void)
{
	return 0; /* the one interpreter, started at the first case */
}

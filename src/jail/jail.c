/*
 * NAME
 *     jail - run a program in the sandbox, with limits
 *
 * SYNOPSIS
 *     jail --work DIR [--venv ENV] [--ro PATH]... [--seconds S] [--mem MB] [--file-mb MB]
 *          [--log-max BYTES] -- PROG [ARG...]
 *     jail --kind
 *
 * DESCRIPTION
 *     Runs PROG in a jail (src/jail/sandbox.h): a root of its own with the
 *     system read-only, DIR writable at /work (its working folder), the
 *     Python environment ENV read-only at /venv with its interpreter's
 *     prefix, each PATH read-only at its own path, and nothing else of the
 *     host: no home, no out/, no network. Its environment is PATH, HOME=/work,
 *     LC_ALL=C, TMPDIR=/tmp, USER=LOGNAME=jail (and LD_LIBRARY_PATH where
 *     set); none of the caller's. PROG and the paths among its ARGs are as the jail sees
 *     them (/work/..., /venv/bin/python). The jail's process group is
 *     killed after S seconds of wall clock (default 300); it gets 2 x S
 *     seconds of CPU, MB MiB of address space (default none) and files up
 *     to --file-mb MiB (default 256). Its stdout and stderr, together, go
 *     to stdout once it has ended, up to --log-max bytes (default 16 MiB).
 *     A host whose jails cannot hide its files (no root of their own:
 *     neither root with mount namespaces nor bubblewrap) is refused.
 *     --kind prints the isolation this host gives a jail, one line.
 *     scripts/import-kernelbench runs problem files through it.
 *
 * EXIT STATUS
 *     0 PROG ran and exited 0 (--kind: jails here hide the host's files);
 *     1 PROG failed (an exit status, a signal, the time limit: said on
 *     stderr) or could not be jailed or started; 2 bad usage.
 *
 * SEE ALSO
 *     doc/verification.md (The sandbox), doc/kernelbench.md
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox.h"
#include "../lib/opts.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: jail --work DIR [--venv ENV] [--ro PATH]... [--seconds S] [--mem MB] [--file-mb MB] "
	"[--log-max BYTES] -- PROG [ARG...]\n"
	"       jail --kind\n";

/* the jail's folders: work and venv as realpaths (malloc'd), ro added
 * after the venv interpreter's prefix; dies on a path it cannot use */
static void
jailsetup(struct jail *j, const char *work, const char *venv, const struct optlist *ro)
{
	size_t k = 0, cap = sizeof j->ro / sizeof j->ro[0] - 1;

	memset(j, 0, sizeof *j);
	if (!(j->work = realpath(work, NULL)))
		die(EXIT_USAGE, "cannot use the work folder '%s':", work);
	if (venv && jailvenv(j, venv) < 0)
		die(EXIT_USAGE, "no Python environment with a bin/python: '%s'", venv);
	while (k < cap && j->ro[k])
		k++;
	for (size_t i = 0; i < ro->n; i++) {
		char *real = realpath(ro->v[i], NULL);
		if (!real)
			die(EXIT_USAGE, "cannot use the read-only path '%s':", ro->v[i]);
		if (k == cap)
			die(EXIT_USAGE, "too many read-only paths: at most %zu with --venv's", cap);
		j->ro[k++] = real;
	}
}

/* what became of the run, on stderr; 0 when it exited 0, else 1 */
static int
verdict(const char *prog, const struct run *r, int seconds)
{
	if (r->timedout)
		warn("'%s' ran longer than %d s and was killed", prog, seconds);
	else if (r->status > 128)
		warn("'%s' was killed by signal %d (%s)", prog, r->status - 128, strsignal(r->status - 128));
	else if (r->status != 0)
		warn("'%s' exited with status %d", prog, r->status);
	return r->timedout || r->status != 0 ? EXIT_RETRY : EXIT_OK;
}

int
main(int argc, char **argv)
{
	const char *work = NULL, *venv = NULL;
	struct optlist ro = { 0 }, in = { 0 };
	int kind = 0, seconds = 300, mem = 0, filemb = 256, n = argc, rc;
	size_t logmax = 16 << 20;
	struct jail j;
	struct runlimits lim;
	struct run r;
	struct opt tab[] = {
		{ "--work", "DIR", OPT_STR, &work, 0, 0, "the writable folder, /work in the jail (required)" },
		{ "--venv", "ENV", OPT_STR, &venv, 0, 0, "a Python environment, read-only at /venv" },
		{ "--ro", "PATH", OPT_LIST, &ro, 0, 0, "a host path the jail may read, at its own path (repeatable)" },
		{ "--seconds", "S", OPT_INT, &seconds, 1, 86400, "the wall clock; CPU gets 2 x S (default 300)" },
		{ "--mem", "MB", OPT_INT, &mem, 0, 1 << 22, "the address space in MiB (default 0: no limit)" },
		{ "--file-mb", "MB", OPT_INT, &filemb, 1, 1 << 20, "the largest file it may write (default 256)" },
		{ "--log-max", "BYTES", OPT_SIZE, &logmax, 1, 1 << 30, "its output kept (default 16 MiB)" },
		{ "--kind", NULL, OPT_FLAG, &kind, 0, 0, "print the isolation a jail gets here; exit 1 when weak" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, 0, 0 };

	setprogname(argv[0]);
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			n = i;
			break;
		}
	optparse(&spec, n, argv, &in);
	if (kind) {
		printf("%s\n", jailkind());
		if (fflush(stdout) != 0 || ferror(stdout))
			die(EXIT_RETRY, "cannot write to standard output:");
		return jailweak() ? EXIT_RETRY : EXIT_OK;
	}
	if (!work || n >= argc - 1)
		optdie(&spec, "need --work DIR and, after --, the program to run");
	if (argv[n + 1][0] != '/')
		optdie(&spec, "the program must be an absolute path as the jail sees it: '%s'", argv[n + 1]);
	if (jailweak())
		die(EXIT_RETRY, "cannot jail '%s': %s", argv[n + 1], jailweak());
	jailsetup(&j, work, venv, &ro);
	lim.seconds = seconds;
	lim.memmb = mem;
	lim.filemb = filemb;
	lim.jail = &j;
	if (runcapture(argv + n + 1, j.work, NULL, &lim, logmax, &r) < 0)
		die(EXIT_RETRY, "cannot run '%s' in the jail:", argv[n + 1]);
	fwrite(r.log.s, 1, r.log.n, stdout);
	rc = verdict(argv[n + 1], &r, seconds);
	buffree(&r.log);
	jailfreepaths(&j);
	free((char *)j.work);
	free((char *)j.venv);
	optfree(&ro);
	optfree(&in);
	if (fflush(stdout) != 0 || ferror(stdout))
		die(EXIT_RETRY, "cannot write to standard output:");
	return rc;
}

/* nvcc.c - see nvcc.h */
#include "nvcc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/json.h"
#include "../lib/parts.h"
#include "../lib/util.h"

int
nvccrun(const char *nvcc, char *const args[], const char *dir, int seconds, long memmb, long workmb, struct run *r)
{
	struct jail j;
	struct runlimits lim = { seconds, memmb, 512, &j };
	const char *progs[] = { nvcc, NULL };
	char *argv[64];
	int n = 0, rc, sig;

	memset(&j, 0, sizeof j);
	j.work = dir;
	j.workmb = workmb;
	jailaddpaths(&j, progs);
	argv[n++] = (char *)nvcc;
	for (; *args && n < 62; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	rc = runcapture(argv, dir, NULL, &lim, NVCC_MAX_LOG, r);
	jailfreepaths(&j);
	if (rc == 0 && r->status != 0 && !r->timedout && nospace(dir, 0)) {
		buffree(&r->log); /* not the source's fault: the disk is full */
		errno = ENOSPC;
		return -1;
	}
	if (rc == 0 && r->diskfull) { /* the source's doing: refused, whatever nvcc made of it */
		bufreset(&r->log);
		bufprintf(&r->log, "nvcc wrote more than %ld MiB (its work folder and /tmp): refused\n", workmb);
		r->status = r->status ? r->status : 1;
		return 0;
	}
	sig = r->status - 128;
	if (rc == 0 && !r->timedout && (sig == SIGKILL || sig == SIGINT || sig == SIGTERM || sig == SIGHUP)) {
		/* nor is a signal from outside (a kill, Ctrl-C, the OOM killer); a
		 * crash, SIGXCPU at the CPU limit or the time limit are the source's */
		warn("nvcc was stopped by signal %d from outside (a kill, or the OOM killer): no verdict", sig);
		buffree(&r->log);
		errno = ECANCELED;
		return -1;
	}
	return rc;
}

char *
nvccroot(const char *nvcc)
{
	char path[PATH_MAX], *s;

	if (!realpath(nvcc, path))
		snprintf(path, sizeof path, "/usr/local/cuda/bin/nvcc");
	for (int k = 0; k < 2 && (s = strrchr(path, '/')); k++)
		*s = 0;
	return xstrdup(path);
}

/* what prog --version prints (a buffer's text, to buffree), or -1 with errno */
static int
versiontext(const char *prog, struct buf *out)
{
	char *argv[] = { (char *)prog, "--version", NULL };
	struct runlimits lim = { 30, 4096, 1, NULL };
	struct run r;

	if (runcapture(argv, NULL, NULL, &lim, 1 << 16, &r) < 0)
		return -1;
	if (r.status != 0 || !r.log.s) {
		buffree(&r.log);
		errno = ENOEXEC;
		return -1;
	}
	*out = r.log;
	return 0;
}

char *
nvccversion(const char *nvcc)
{
	struct buf t;
	char *v, *p;

	if (versiontext(nvcc, &t) < 0)
		return NULL;
	p = strstr(t.s, "release ");
	v = p ? xstrndup(p + 8, strcspn(p + 8, ",\n")) : xstrdup("unknown");
	p = strstr(t.s, "Build ");
	if (p) {
		char *full = xasprintf("%s (%.*s)", v, (int)strcspn(p + 6, "\n"), p + 6);
		free(v);
		v = full;
	}
	buffree(&t);
	return v;
}

char *
ccversion(const char *cc)
{
	struct buf t;
	char *v;

	if (versiontext(cc, &t) < 0)
		return NULL;
	v = xstrndup(t.s, strcspn(t.s, "\n"));
	buffree(&t);
	return v;
}

char *
archflag(const char *arch)
{
	if (strchr(arch + 3, 'a'))
		return xasprintf("-gencode=arch=compute_%s,code=sm_%s", arch + 3, arch + 3);
	return xasprintf("-arch=%s", arch);
}

/* one of nvccpreprocess's runs, on a thread of its own */
struct nvccjob {
	const char *nvcc, *dir;
	char *const *args;
	int seconds, rc, err;
	long memmb, workmb;
	struct run r;
};

static void *
nvccjobrun(void *p)
{
	struct nvccjob *j = p;

	j->rc = nvccrun(j->nvcc, j->args, j->dir, j->seconds, j->memmb, j->workmb, &j->r);
	j->err = errno;
	return NULL;
}

int
nvccflags(const char *flags, char **copy, char **args, int max)
{
	char *t, *save = NULL;
	int n = 0;

	*copy = xstrdup(flags);
	for (t = strtok_r(*copy, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save))
		args[n++] = t;
	return n;
}

/* "-E -x cu FILE -o OUT" and the end of the list, at a */
static void
preargs(char **a, const char *file, char *out)
{
	char *tail[] = { "-E", "-x", "cu", (char *)file, "-o", out, NULL };

	memcpy(a, tail, sizeof tail);
}

int
nvccpreprocess(const char *nvcc, const char *flags, const char *dir, const char *file, int seconds, long memmb,
               long workmb, struct run *r)
{
	char *copy, *dev = xasprintf("%s.device.i", file), *host = xasprintf("%s.host.i", file);
	char *a1[40], *a2[40];
	int n = nvccflags(flags, &copy, a1, 30), k, bad;
	struct nvccjob j[2] = { { nvcc, dir, a1, seconds, 0, 0, memmb, workmb, { 0 } },
	                        { nvcc, dir, a2, seconds, 0, 0, memmb, workmb, { 0 } } };

	memcpy(a2, a1, (size_t)n * sizeof a1[0]);
	preargs(a1 + n, file, dev);
	a2[n] = "-Xcompiler"; /* the host's: __CUDA_ARCH__ undefined */
	a2[n + 1] = "-U__CUDA_ARCH__";
	preargs(a2 + n + 2, file, host);
	jailkind(); /* the sandbox's lazy probes made here, on one thread, not on each of the runs' */
	runparts(nvccjobrun, j, sizeof j[0], 2);
	free(copy);
	free(dev);
	free(host);
	for (k = 0; k < 2; k++)
		if (j[k].rc < 0) {
			for (int i = 0; i < 2; i++)
				if (j[i].rc == 0)
					buffree(&j[i].r.log);
			errno = j[k].err;
			return -1;
		}
	/* the first that failed speaks for both */
	bad = j[0].r.timedout || j[0].r.status != 0 ? 0 : 1;
	*r = j[bad].r;
	buffree(&j[!bad].r.log);
	return 0;
}

json_t *
nvccresources(const char *log)
{
	json_t *arr = json_array(), *cur = NULL, *props = NULL;
	const char *p = log;

	/* ptxas -v, line by line: "Compiling entry function 'K'" starts K; its
	 * "Used N registers[, M bytes smem]" line follows; "Function properties
	 * for F" (any function) precedes F's "A bytes stack frame, B bytes spill
	 * stores, C bytes spill loads" line */
	while (*p) {
		const char *eol = strchr(p, '\n'), *info;
		char line[512], name[256];
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		int a, b, c;
		snprintf(line, sizeof line, "%.*s", (int)(n < 511 ? n : 511), p);
		p += eol ? n + 1 : n;
		info = strncmp(line, "ptxas info", 10) ? NULL : strchr(line, ':');
		if (info && sscanf(info, ": Compiling entry function '%255[^']'", name) == 1) {
			cur = json_pack("{s:s,s:i,s:i,s:i,s:i,s:i}", "kernel", name, "registers", 0, "shared_bytes", 0,
			                "stack_bytes", 0, "spill_stores", 0, "spill_loads", 0);
			json_array_append_new(arr, cur);
		} else if (info && sscanf(info, ": Function properties for %255s", name) == 1) {
			size_t i;
			json_t *k;
			props = NULL;
			json_array_foreach(arr, i, k)
				if (!strcmp(jstr(k, "kernel", ""), name))
					props = k;
		} else if (info && cur && sscanf(info, ": Used %d registers", &a) == 1) {
			const char *q = strstr(line, " bytes smem");
			json_object_set_new(cur, "registers", json_integer(a));
			if (q) {
				while (q > line && isdigit((unsigned char)q[-1]))
					q--;
				json_object_set_new(cur, "shared_bytes", json_integer(atoi(q)));
			}
		} else if (!info && props &&
		           sscanf(line, "%d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &a, &b, &c) == 3) {
			json_object_set_new(props, "stack_bytes", json_integer(a));
			json_object_set_new(props, "spill_stores", json_integer(b));
			json_object_set_new(props, "spill_loads", json_integer(c));
			props = NULL;
		}
	}
	return arr;
}

/*
 * Bytes that are not UTF-8 become '?' (a character the cut split, source
 * in another encoding), so that the diagnostics fit in JSON: jansson
 * refuses such a string, and the teacher would get none.
 */
static void
utf8fix(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		int k = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
		long cp = k == 1 ? *p & 0x1F : k == 2 ? *p & 0x0F : *p & 0x07;
		int i;
		for (i = 1; i <= k && (p[i] & 0xC0) == 0x80; i++)
			cp = cp << 6 | (p[i] & 0x3F);
		if (k < 0 || i <= k || (k == 1 && cp < 0x80) || (k == 2 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
			*p++ = '?';
		else
			p += k + 1;
	}
}

/* log for the teacher: dir's and /work's paths cut, capped, valid UTF-8; nvcc's without ptxas's chatter */
static char *
trimlog(const char *log, const char *dir, int nvcc)
{
	struct buf b;
	const char *p = log, *strip[] = { dir, "/work", NULL };

	bufinit(&b, NVCC_MAX_LOG);
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) + 1 : strlen(p);
		if (!nvcc || (strncmp(p, "ptxas info", 10) && strncmp(p, "    ", 4) && n > 1)) {
			const char *q = p;
			while (q < p + n) {
				int cut = 0;
				for (const char *const *s = strip; *s && !cut; s++) {
					size_t dl = strlen(*s);
					if (dl && !strncmp(q, *s, dl) && (q[dl] == '/' || q[dl] == ':')) {
						q += dl + (q[dl] == '/');
						cut = 1;
					}
				}
				if (!cut)
					bufputc(&b, *q++);
			}
		}
		p += n;
	}
	if (b.n > NVCC_MAX_DIAG) {
		b.n = NVCC_MAX_DIAG;
		b.s[b.n] = 0;
		bufputs(&b, "\n[... more diagnostics cut ...]\n");
	}
	utf8fix(b.s);
	return bufdetach(&b);
}

char *
nvccdiagnostics(const char *log, const char *dir)
{
	return trimlog(log, dir, 1);
}

char *
pydiagnostics(const char *log, const char *dir)
{
	return trimlog(log, dir, 0);
}

/*
 * NAME
 *     compile - from a teacher's answer to a built candidate
 *
 * SYNOPSIS
 *     compile [options] -o COMPILE_JSON TASK_JSON RESPONSE_JSON
 *     compile --screen FILE.cu --entry NAME [options]
 *     compile --object FILE.so [options]
 *     compile --lang triton [options] -o COMPILE_JSON TASK_JSON RESPONSE_JSON
 *
 * DESCRIPTION
 *     Takes the CUDA source out of the answer's fenced code blocks and
 *     appends the task's signature, so that nvcc refuses a definition
 *     whose parameter types differ. In a build folder of its own, with
 *     nvcc in the sandbox, it builds the source into a shared object,
 *     runs the static screen over the source as the build preprocessed
 *     it, and judges the built object. A build the screen refuses is
 *     thrown away, never loaded.
 *     Every failure of the candidate is a status in COMPILE_JSON, exit 0:
 *     no_code, screen_failed, compile_error, timeout; else ok, with each
 *     kernel's resources. A build that writes more than --disk-limit MiB
 *     (its folder's files and its /tmp together) is a compile_error,
 *     "wrote more than N MiB". Beside it goes cand.so, empty when nothing was
 *     built. Results are cached in the cache dir's build cache.
 *     --lang triton screens a Triton candidate with tritonscreen.py and
 *     compiles its kernels ahead of time with tritonaot.py, both in the
 *     sandbox; cand.py goes beside COMPILE_JSON.
 *     --screen and --object print the screen's or the object check's
 *     violations of one file, for the test corpora.
 *
 * FILES
 *     COMPILE_JSON (compile.json), cand.so or cand.py beside it;
 *     CACHE/build/, the build cache.
 *
 * EXIT STATUS
 *     0 written, whatever became of the candidate; 1 cannot run nvcc or
 *     Python, nvcc failed on a full disk, or cannot write: no cand.so and
 *     no new COMPILE_JSON is left; 2 bad usage or input.
 *
 * SEE ALSO
 *     doc/verification.md, doc/triton.md
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/task.h"
#include "artifact.h"
#include "../lib/buildcache.h"
#include "../lib/json.h"
#include "nvcc.h"
#include "../lib/opts.h"
#include "../lib/round.h"
#include "../lib/schema.h"
#include "screen.h"
#include "../lib/sha.h"
#include "../lib/tensor.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: compile [options] -o COMPILE_JSON TASK_JSON RESPONSE_JSON\n"
	"       compile --screen FILE.cu --entry NAME [options]\n"
	"       compile --object FILE.so [options]\n"
	"       compile --lang triton [options] -o COMPILE_JSON TASK_JSON RESPONSE_JSON\n";

enum {
	MAX_ANSWER = 2 << 20,    /* answers larger than this are refused */
	MAX_BLOCK = 512 << 10,   /* and code blocks larger than this */
};
/* bumped when the screen's or the object check's rules change: cached
 * verdicts of older rules are not reused */
static const char CHECKS_VERSION[] = "checks 5";

struct opts {
	const char *out, *nvcc, *arch, *cachedir;
	int timelimit, memlimit, disklimit, noscreen;
	const char *lang, *tritonenv, *runtime; /* --lang triton: the Triton environment, the trusted scripts */
};

/* ------------------------------------------------------------ extraction */

struct block {
	const char *start;  /* first line of code */
	size_t len;
	char lang[32];
	int line;           /* 1-based line of the opening fence */
	int closed;
};

/* the closing fence of a block opened with fence characters ch at b->start */
static const char *
closing(struct block *b, char ch, int fence, int *line)
{
	const char *c;

	for (c = b->start; *c;) {
		const char *e2 = strchr(c, '\n'), *r = c;
		int ind = 0, f2 = 0;
		if (!e2)
			e2 = c + strlen(c);
		(*line)++;
		while (*r == ' ' && ind < 4)
			r++, ind++;
		while (r[f2] == ch)
			f2++;
		if (ind < 4 && f2 >= fence) {
			const char *t = r + f2;
			while (t < e2 && isspace((unsigned char)*t))
				t++;
			if (t == e2) {
				b->len = (size_t)(c - b->start);
				b->closed = 1;
				return *e2 ? e2 + 1 : e2;
			}
		}
		c = *e2 ? e2 + 1 : e2;
	}
	b->len = strlen(b->start); /* an answer cut off mid-block */
	return b->start + b->len;
}

/* the fenced code blocks of markdown text (``` or ~~~, CommonMark-style) */
static size_t
findblocks(const char *text, struct block *b, size_t max)
{
	const char *p = text;
	size_t n = 0;
	int line = 1;

	while (*p && n < max) {
		const char *eol = strchr(p, '\n'), *q = p;
		int indent = 0, fence = 0;
		char ch;

		if (!eol)
			eol = p + strlen(p);
		while (*q == ' ' && indent < 4)
			q++, indent++;
		ch = *q;
		if (indent < 4 && (ch == '`' || ch == '~'))
			while (q[fence] == ch)
				fence++;
		if (fence >= 3) {
			const char *info = q + fence;
			size_t k = 0;
			memset(&b[n], 0, sizeof b[n]);
			while (info < eol && isspace((unsigned char)*info))
				info++;
			while (info < eol && !isspace((unsigned char)*info) && *info != '{' && k < sizeof b[n].lang - 1)
				b[n].lang[k++] = (char)tolower((unsigned char)*info++);
			b[n].line = line;
			b[n].start = *eol ? eol + 1 : eol;
			p = closing(&b[n], ch, fence, &line);
			n++;
			continue;
		}
		line++;
		p = *eol ? eol + 1 : eol;
	}
	return n;
}

static int
codelang(const char *lang)
{
	static const char *const ok[] = { "", "cuda", "cu", "cuh", "c++", "cpp", "cxx", "cc", "c",
	                                  "hpp", "h", "nvcc", NULL };
	const char *const *k;

	for (k = ok; *k; k++)
		if (!strcmp(*k, lang))
			return 1;
	return 0;
}

static int
pythonlang(const char *lang)
{
	return !strcmp(lang, "") || !strcmp(lang, "python") || !strcmp(lang, "py") || !strcmp(lang, "python3");
}

/* 1 when Python source src (n bytes) has a line "def entry(" at its first column */
static int
pydefines(const char *src, size_t n, const char *entry)
{
	size_t el = strlen(entry);

	for (const char *p = src; p && p < src + n; p = memchr(p, '\n', (size_t)(src + n - p)), p = p ? p + 1 : NULL)
		if ((size_t)(src + n - p) > el + 5 && !strncmp(p, "def ", 4) && !strncmp(p + 4, entry, el) &&
		    (p[4 + el] == '(' || p[4 + el] == ' '))
			return 1;
	return 0;
}

/* the block to build: the last that defines entry, else the last one in the
 * language (C/CUDA, or Python for triton); -1 when none */
static int
pickblock(const struct block *b, size_t nb, const char *entry, int triton, int *defines, int *others)
{
	int pick = -1;

	*defines = *others = 0;
	for (size_t i = 0; i < nb; i++) {
		if (!(triton ? pythonlang(b[i].lang) : codelang(b[i].lang)) || b[i].len > MAX_BLOCK) {
			(*others)++;
			continue;
		}
		if (triton ? pydefines(b[i].start, b[i].len, entry) : definesfn(b[i].start, b[i].len, entry)) {
			pick = (int)i;
			*defines = 1;
		} else if (!*defines) {
			pick = (int)i;
		}
	}
	return pick;
}

/* ------------------------------------------------------------- building */

/* the declarations appended after the candidate: nvcc then rejects a
 * definition whose parameter types differ from the spec's signature */
static char *
finalsource(const char *src, size_t n, const struct task *task)
{
	struct abiarg a[MAXARGS];
	char *inc = abiincludes(a, taskabi(task, a));
	char *s = xasprintf("%.*s\n\n/* appended by retort: the signature the task asks for */\n%s%s;\n", (int)n, src, inc,
	                    task->signature);

	free(inc);
	return s;
}

/* a fresh build folder beside path, by its absolute name (util tempdir; at exit it goes) */
static char *
absdir(const char *path)
{
	char *parent = xstrdup(path), *slash = strrchr(parent, '/'), *real, *d;

	if (slash)
		*slash = 0;
	real = realpath(slash ? parent : ".", NULL);
	d = real ? xasprintf("%s/%s", real, slash ? slash + 1 : path) : NULL;
	free(parent);
	free(real);
	if (d) {
		char *dir = tempdir(d, "build");
		free(d);
		d = dir;
	}
	return d;
}

/* a file of the build folder into a buffer (NULL: nvcc did not write it) */
static char *
slurp(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct buf b;

	bufinit(&b, (size_t)256 << 20);
	if (readfile(p, &b) < 0) {
		if (errno != ENOENT)
			die(EXIT_RETRY, "cannot read '%s':", p);
		buffree(&b);
		free(p);
		return NULL;
	}
	free(p);
	return bufdetach(&b);
}

/* the names a candidate may not take, from nvcc's toolkit and our libc */
static json_t *
reservednamesof(const char *nvcc)
{
	char *cuda = nvccroot(nvcc);
	json_t *r = reservednames(cuda);

	free(cuda);
	return r;
}

/* nvcc's flags for a candidate's build, arch its -arch (archflag) (malloc'd);
 * --threads 2: nvcc runs the host's front end (cudafe++) beside the
 * device's (cicc, ptxas), a tenth off a build's wall time
 * (bench/compile.sh), its CPU time the same */
static char *
buildflags(const char *arch)
{
	return xasprintf("%s -O3 -lineinfo -Xptxas -v -std=c++17 -shared -Xcompiler -fPIC -cudart shared --threads 2",
	                 arch);
}

/* nvcc's arguments for the build of dir/cand.so (pointing into *copy, to be
 * freed); keep: its intermediate files kept beside it (-keep), for the
 * screen: cand.cpp1.ii is the source preprocessed for the device, as cicc
 * reads it, cand.cpp4.ii for the host, as cudafe++ reads it */
static void
buildargs(const char *flags, int keep, char **copy, char *args[32])
{
	int ac = nvccflags(flags, copy, args, 25);

	if (keep)
		args[ac++] = "-keep";
	args[ac++] = "-o";
	args[ac++] = "cand.so";
	args[ac++] = "cand.cu";
	args[ac] = NULL;
}

/* the violations of dir/file (NAME.cu): its raw directives (screenraw),
 * then its preprocessed text; NULL with rec's status set when nvcc failed. The
 * build (nvcc with flags, and -keep: buildargs) runs first, jailed (a
 * build the screen refuses is thrown away, never loaded), its run in
 * *built; a build that went through is screened as it preprocessed its
 * source itself (what cicc and cudafe++ read: nvcc -keep), any other as
 * two preprocessing runs apart preprocess it with the build's flags (its
 * errors may come before it preprocessed both, and a violation is still
 * news) */
static json_t *
screensource(const struct opts *o, const char *dir, const char *file, const struct screenrules *rules,
             const char *flags, struct run *built, json_t *rec)
{
	char *bcopy, *build[32];
	struct run r;
	int base = (int)strlen(file) - 3, left;
	char *devname = xasprintf("%.*s.cpp1.ii", base, file);
	char *hostname = xasprintf("%.*s.cpp4.ii", base, file), *dev = NULL, *host = NULL;
	char *raw = slurp(dir, file);
	json_t *v = screenraw(raw ? raw : "", raw ? strlen(raw) : 0, rules->allow), *pre;

	free(raw);
	memset(&r, 0, sizeof r);
	buildargs(flags, 1, &bcopy, build);
	if (nvccrun(o->nvcc, build, dir, o->timelimit, o->memlimit, o->disklimit, built) < 0)
		die(EXIT_RETRY, "cannot run '%s' in '%s':", o->nvcc, dir);
	free(bcopy);
	if (!built->timedout && built->status == 0) {
		dev = slurp(dir, devname);
		host = slurp(dir, hostname);
	}
	if (!dev || !host) {
		free(dev);
		free(host);
		free(devname);
		free(hostname);
		devname = xasprintf("%s.device.i", file);
		hostname = xasprintf("%s.host.i", file);
		/* within what the build left of the time limit: nvcc's time
		 * for a source stays one limit, as it was with the three at once */
		left = o->timelimit - (int)ceil(built->seconds);
		if (built->timedout || left < 1) {
			r.timedout = 1;
			bufinit(&r.log, 1);
		} else if (nvccpreprocess(o->nvcc, flags, dir, file, left, o->memlimit, o->disklimit, &r) < 0) {
			die(EXIT_RETRY, "cannot run '%s' in '%s':", o->nvcc, dir);
		}
		dev = r.timedout || r.status ? NULL : slurp(dir, devname);
		host = r.timedout || r.status ? NULL : slurp(dir, hostname);
		if ((!dev || !host) && !r.timedout && r.status == 0) /* it said it did, but did not */
			bufputs(&r.log, "[nvcc wrote no preprocessed output]\n");
		if (!dev || !host)
			r.status = r.status ? r.status : 1;
	}
	if ((r.timedout || r.status != 0) && json_array_size(v)) {
		/* what the raw lines say is reason enough (a file nvcc could not see, say) */
	} else if (r.timedout || r.status != 0) {
		char *d = nvccdiagnostics(r.log.s, dir);
		json_decref(v);
		v = NULL;
		setstatus(rec, STAGE_COMPILE, r.timedout ? ST_TIMEOUT : ST_COMPILE_ERROR);
		json_object_set_new(rec, r.timedout ? "reason" : "diagnostics", r.timedout
		                    ? json_sprintf("nvcc ran longer than %d s", o->timelimit) : json_string(d));
		free(d);
	} else {
		pre = screen(dev, host, file, rules);
		json_array_extend(v, pre);
		json_decref(pre);
	}
	free(dev);
	free(host);
	buffree(&r.log);
	free(devname);
	free(hostname);
	return v;
}

/* the build's run r (its log freed): status, diagnostics and resources into rec; 0 when built */
static int
buildresult(const struct opts *o, const char *dir, struct run *r, json_t *rec)
{
	char *d = nvccdiagnostics(r->log.s, dir);
	int ok = !r->timedout && r->status == 0;

	json_object_set_new(rec, "seconds", json_real(r->seconds));
	if (r->timedout) {
		setstatus(rec, STAGE_COMPILE, ST_TIMEOUT);
		json_object_set_new(rec, "reason", json_sprintf("nvcc ran longer than %d s", o->timelimit));
	} else {
		setstatus(rec, STAGE_COMPILE, ok ? ST_OK : ST_COMPILE_ERROR);
		json_object_set_new(rec, "diagnostics", json_string(d)); /* errors, or warnings */
		if (ok)
			json_object_set_new(rec, "resources", nvccresources(r->log.s));
	}
	free(d);
	buffree(&r->log);
	return ok ? 0 : -1;
}

/* a finished build folder's result into the cache (buildcache.h), its
 * cand.so with it when it built */
static void
publish(const char *dir, const char *cachedir, const char *key, json_t *rec)
{
	char *res = xasprintf("%s/result.json", dir), *so = xasprintf("%s/cand.so", dir);
	struct cachefile f[] = { { "result.json", res, 0 }, { "cand.so", so, 0 } };

	if (jwrite(res, rec) < 0)
		warn("cannot write '%s' (the result stands; it is not cached):", res);
	else
		cacheput(cachedir, "build", key, f, statusof(rec, STAGE_COMPILE) == ST_OK ? 2 : 1);
	free(res);
	free(so);
}

/* the cached result of key (its cand.so copied to sopath), or NULL */
static json_t *
cached(const char *cachedir, const char *key, const char *sopath)
{
	char *dir = cacheentry(cachedir, "build", key), *res = xasprintf("%s/result.json", dir), err[512];
	struct cachefile so = { "cand.so", sopath, 0 };
	json_t *hit = access(res, F_OK) == 0 ? jload(res, err, sizeof err) : NULL;

	if (hit && statusof(hit, STAGE_COMPILE) == ST_OK && !cacheget(cachedir, "build", key, &so, 1)) {
		json_decref(hit);
		hit = NULL;
	}
	free(dir);
	free(res);
	return hit;
}

static json_t *
buildcandidate(const struct opts *o, const struct task *task, const char *src, size_t srclen, const char *sopath)
{
	char *full = finalsource(src, srclen, task), key[65], *dir, *flags, *keytext, *allowtext, *af, *bcopy, *bargs[32];
	struct run built;
	char *version = nvccversion(o->nvcc);
	json_t *rec, *viol, *reserved, *allow = json_object_get(task->json, "allow"), *none;
	const char *entry = task->entry;

	if (!version)
		die(EXIT_RETRY, "cannot run '%s --version':", o->nvcc);
	af = archflag(o->arch);
	flags = buildflags(af);
	allowtext = jdumps(allow ? allow : (none = json_array()), JSON_COMPACT);
	if (!allow)
		json_decref(none);
	keytext = xasprintf("%s\n%s\n%s\n%s\n%s\n%s%s\n", full, flags, version, o->arch, allowtext, CHECKS_VERSION,
	                    o->noscreen ? " (no screen)" : "");
	sha256hex(keytext, strlen(keytext), key);
	if (o->cachedir && (rec = cached(o->cachedir, key, sopath)))
		goto done;

	/* a build folder of our own beside the output, which nvcc sees as /work */
	if (mkparent(sopath) < 0 || !(dir = absdir(sopath)))
		die(EXIT_RETRY, "cannot create a folder beside '%s':", sopath);
	{
		char *cu = xasprintf("%s/cand.cu", dir);
		if (writefile(cu, full, strlen(full)) < 0)
			die(EXIT_RETRY, "cannot write '%s':", cu);
		free(cu);
	}
	rec = json_pack("{s:s,s:s,s:s}", "nvcc_version", version, "flags", flags, "arch", o->arch);
	reserved = o->noscreen ? NULL : reservednamesof(o->nvcc);
	if (o->noscreen) {
		viol = json_array();
		buildargs(flags, 0, &bcopy, bargs);
		if (nvccrun(o->nvcc, bargs, dir, o->timelimit, o->memlimit, o->disklimit, &built) < 0)
			die(EXIT_RETRY, "cannot run '%s' in '%s':", o->nvcc, dir);
		free(bcopy);
	} else {
		viol = screensource(o, dir, "cand.cu", &(struct screenrules){ entry, allow, reserved }, flags, &built, rec);
	}
	if (!viol || json_array_size(viol)) {
		if (viol)
			setstatus(rec, STAGE_COMPILE, ST_SCREEN_FAILED);
		buffree(&built.log);
	} else if (buildresult(o, dir, &built, rec) == 0 && !o->noscreen) {
		char err[512], *so = xasprintf("%s/cand.so", dir);
		json_t *obj;
		if (!(obj = artifactcheck(so, reserved, allow, err, sizeof err)))
			die(EXIT_RETRY, "%s", err);
		json_array_extend(viol, obj);
		if (json_array_size(obj))
			setstatus(rec, STAGE_COMPILE, ST_SCREEN_FAILED);
		json_decref(obj);
		free(so);
	}
	if (viol)
		json_object_set_new(rec, "violations", viol);
	if (statusof(rec, STAGE_COMPILE) == ST_OK) {
		char *so = xasprintf("%s/cand.so", dir);
		if (copyfile(so, sopath) < 0)
			die(EXIT_RETRY, "cannot copy the built candidate to '%s':", sopath);
		free(so);
	}
	/* a timeout depends on --time-limit, which is not in the key */
	if (o->cachedir && statusof(rec, STAGE_COMPILE) != ST_TIMEOUT)
		publish(dir, o->cachedir, key, rec);
	tempdone(dir);
	free(dir);
	json_decref(reserved);
done:
	free(full);
	free(version);
	free(flags);
	free(keytext);
	free(allowtext);
	free(af);
	return rec;
}

/* --------------------------------------------------------------- Triton */

/*
 * A Triton candidate: the two trusted scripts of --runtime run in the
 * sandbox with the Triton environment at /venv (its interpreter's prefix
 * read-only), in the build folder (/work there), each writing its JSON
 * to a file there. 0 once the script ran (r says how), else exit 1.
 */
static void
tritonrun(const struct opts *o, const char *dir, char *const *args, struct run *r)
{
	struct jail j;
	struct runlimits lim = { o->timelimit, o->memlimit, 512, &j };
	char *py = xasprintf("%s/bin/python", o->tritonenv), *argv[12];
	const char *progs[] = { py, NULL };
	int n = 0;

	memset(&j, 0, sizeof j);
	j.work = dir;
	j.workmb = o->disklimit;
	if (!(j.venv = realpath(o->tritonenv, NULL)))
		die(EXIT_USAGE, "the Triton environment '%s' is missing: run ./configure --lang=triton", o->tritonenv);
	jailaddpaths(&j, progs);
	argv[n++] = JAILVENV "/bin/python";
	argv[n++] = "-I";
	argv[n++] = "-B";
	for (; *args && n < 11; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	if (runcapture(argv, dir, NULL, &lim, NVCC_MAX_LOG, r) < 0)
		die(EXIT_RETRY, "cannot run '%s' in '%s':", py, dir);
	jailfreepaths(&j);
	free((char *)j.venv);
	free(py);
}

/* the script's JSON in dir/name, or NULL with the status and diagnostics set in rec from r */
static json_t *
tritonresult(const struct opts *o, const char *dir, const char *name, const char *what, struct run *r, json_t *rec)
{
	char *path = xasprintf("%s/%s", dir, name), err[512];
	json_t *j = NULL;

	if (r->timedout) {
		setstatus(rec, STAGE_COMPILE, ST_TIMEOUT);
		json_object_set_new(rec, "reason", json_sprintf("%s ran longer than %d s", what, o->timelimit));
	} else if (r->diskfull) {
		setstatus(rec, STAGE_COMPILE, ST_COMPILE_ERROR);
		json_object_set_new(rec, "diagnostics", json_sprintf("%s wrote more than %d MiB (its work folder and "
		                    "/tmp): refused", what, o->disklimit));
	} else if (r->status != 0 || !(j = jload(path, err, sizeof err))) {
		char *d = pydiagnostics(r->log.s, dir);
		if (r->status == 0)
			die(EXIT_RETRY, "%s wrote no result: %s", what, err);
		setstatus(rec, STAGE_COMPILE, ST_COMPILE_ERROR);
		json_object_set_new(rec, "diagnostics", json_sprintf("%s failed (exit status %d):\n%s", what,
		                    r->status, d));
		free(d);
	}
	free(path);
	buffree(&r->log);
	return j;
}

/* the task's calling convention, for the screen: entry and args {name, kind, dtype} */
static int
writeabi(const char *dir, const struct task *t)
{
	json_t *abi = json_pack("{s:s,s:[]}", "entry", t->entry, "args");
	char *path = xasprintf("%s/abi.json", dir);
	int i, r;

	for (i = 0; i < t->nargs; i++)
		json_array_append_new(json_object_get(abi, "args"), json_pack("{s:s,s:s,s:s}", "name", t->args[i].name,
		                      "kind", argkinds[t->args[i].kind], "dtype", dtinfos[t->args[i].dt].name));
	r = jwrite(path, abi);
	json_decref(abi);
	free(path);
	return r;
}

/* a trusted script of --runtime copied into the build folder */
static void
script(const struct opts *o, const char *dir, const char *name)
{
	char *from = xasprintf("%s/%s", o->runtime, name), *to = xasprintf("%s/%s", dir, name);

	if (copyfile(from, to) < 0)
		die(EXIT_USAGE, "cannot copy '%s' (--runtime):", from);
	free(from);
	free(to);
}

/* the screen's findings into rec: a syntax error, or violations; 0 when it passed */
static int
tritonscreened(json_t *scr, json_t *rec)
{
	json_t *viol = json_array(), *v;
	const char *syntax = jstr(scr, "syntax_error", NULL);
	size_t i;

	if (syntax) {
		setstatus(rec, STAGE_COMPILE, ST_COMPILE_ERROR);
		json_object_set_new(rec, "diagnostics", json_string(syntax));
		json_decref(viol);
		return -1;
	}
	json_array_foreach(json_object_get(scr, "violations"), i, v)
		json_array_append_new(viol, json_pack("{s:s,s:I,s:s,s:s}", "rule", jstr(v, "rule", ""), "line",
		                      jint(v, "line", 0), "message", jstr(v, "message", ""), "stage", "source"));
	json_object_set_new(rec, "violations", viol);
	if (json_array_size(viol))
		setstatus(rec, STAGE_COMPILE, ST_SCREEN_FAILED);
	return json_array_size(viol) ? -1 : 0;
}

/*
 * The ahead-of-time compile's kernels into rec: resources of those that
 * compiled (ptxas's registers, stack and spills; Triton's shared memory),
 * those left to the runtime's JIT with why, and the errors: the status
 * is compile_error when a kernel failed, else ok.
 */
static void
tritonkernels(json_t *aot, const char *dir, json_t *rec)
{
	json_t *res = json_array(), *jit = json_array(), *k;
	struct buf err;
	size_t i;

	bufinit(&err, NVCC_MAX_LOG);
	if (jstr(aot, "load_error", NULL))
		bufprintf(&err, "loading the module failed: %s\n", jstr(aot, "load_error", ""));
	json_array_foreach(json_object_get(aot, "kernels"), i, k) {
		const char *st = jstr(k, "status", "");
		json_t *r, *one;
		if (!strcmp(st, "jit")) {
			json_array_append_new(jit, json_pack("{s:s,s:I,s:s}", "kernel", jstr(k, "kernel", ""), "line",
			                      jint(k, "line", 0), "reason", jstr(k, "reason", "")));
		} else if (!strcmp(st, "ok") && json_array_size(r = nvccresources(jstr(k, "ptxas", "")))) {
			one = json_array_get(r, 0);
			json_object_set_new(one, "shared_bytes", json_integer(jint(k, "shared_bytes", 0)));
			json_object_set_new(one, "num_warps", json_integer(jint(k, "num_warps", 0)));
			json_object_set_new(one, "num_stages", json_integer(jint(k, "num_stages", 0)));
			json_object_set(one, "config", json_object_get(k, "config"));
			json_object_set_new(one, "seconds", json_real(jnum(k, "seconds", 0)));
			json_array_append(res, one);
			json_decref(r);
		} else {
			if (!strcmp(st, "ok"))
				json_decref(r);
			bufprintf(&err, "kernel %s (at line %" JSON_INTEGER_FORMAT " of the module, launched at line %"
			          JSON_INTEGER_FORMAT "%s):\n%s\n", jstr(k, "kernel", ""), jint(k, "def_line", 0),
			          jint(k, "line", 0), json_is_integer(json_object_get(k, "config")) ? ", an autotuning config" : "",
			          jstr(k, "error", "ptxas reported nothing"));
		}
	}
	json_object_set_new(rec, "triton_version", json_string(jstr(aot, "triton_version", "")));
	json_object_set_new(rec, "resources", res);
	json_object_set_new(rec, "jit", jit);
	setstatus(rec, STAGE_COMPILE, err.n ? ST_COMPILE_ERROR : ST_OK);
	if (err.n) {
		char *d = pydiagnostics(err.s, dir);
		json_object_set_new(rec, "diagnostics", json_string(d));
		free(d);
	}
	buffree(&err);
}

/*
 * A Triton candidate's source in a build folder of its own beside pypath:
 * screened (tritonscreen.py), then its launched kernels compiled ahead of
 * time for --arch (tritonaot.py); the source goes to pypath when it passed.
 */
static json_t *
buildtriton(const struct opts *o, const struct task *task, const char *src, size_t srclen, const char *pypath)
{
	char *dir, *cand, *arch = xasprintf("%d", atoi(o->arch + 3));
	json_t *rec = json_pack("{s:s,s:s}", "lang", "triton", "arch", o->arch), *scr, *aot;
	char *screenargs[] = { "/work/tritonscreen.py", "/work/candidate.py", "/work/abi.json", "/work/screen.json", NULL };
	char *aotargs[] = { "/work/tritonaot.py", "/work/candidate.py", "/work/screen.json", arch, "/work/aot.json", NULL };
	struct run r;
	double t0 = now();

	if (mkparent(pypath) < 0 || !(dir = absdir(pypath)))
		die(EXIT_RETRY, "cannot create a folder beside '%s':", pypath);
	cand = xasprintf("%s/candidate.py", dir);
	if (writefile(cand, src, srclen) < 0 || writeabi(dir, task) < 0)
		die(EXIT_RETRY, "cannot write in '%s':", dir);
	script(o, dir, "tritonscreen.py");
	script(o, dir, "tritonaot.py");
	tritonrun(o, dir, screenargs, &r);
	if ((scr = tritonresult(o, dir, "screen.json", "the Triton screen", &r, rec)) && tritonscreened(scr, rec) == 0) {
		tritonrun(o, dir, aotargs, &r);
		if ((aot = tritonresult(o, dir, "aot.json", "Triton's compiler", &r, rec)))
			tritonkernels(aot, dir, rec);
		json_decref(aot);
	}
	json_decref(scr);
	json_object_set_new(rec, "seconds", json_real(now() - t0));
	if (statusof(rec, STAGE_COMPILE) == ST_OK && copyfile(cand, pypath) < 0)
		die(EXIT_RETRY, "cannot copy the candidate to '%s':", pypath);
	tempdone(dir);
	free(dir);
	free(cand);
	free(arch);
	return rec;
}

/* --------------------------------------------------------- the candidate */

static json_t *
blockjson(const struct block *b, int pick, size_t nb, int defines, const char *entry, int triton)
{
	char why[300], h[65];
	json_t *rec;

	snprintf(why, sizeof why, "block %d of %zu (%s)%s%s", pick + 1, nb, b->lang[0] ? b->lang : "no language",
	         defines ? " is the last that defines " : triton ? " is the last Python block; none defines "
	                                                         : " is the last C/CUDA block; none defines ", entry);
	rec = json_pack("{s:{s:i,s:i,s:s,s:s,s:i,s:b},s:s%}", "block", "index", pick + 1, "count", (int)nb, "lang",
	                b->lang, "why", why, "line", b->line, "closed", b->closed, "source", b->start, b->len);
	sha256hex(b->start, b->len, h);
	json_object_set_new(rec, "source_sha256", json_string(h));
	return rec;
}

static int
candidate(const struct opts *o, const char *taskpath, const char *resppath)
{
	char *sopath, err[1024];
	struct task task;
	json_t *resp = schemaload(resppath, schema_response_json), *rec = NULL, *built;
	const char *text, *entry;
	struct block blocks[64];
	size_t nb;
	int pick, defines, others, triton = !strcmp(o->lang, "triton");

	if (taskload(taskpath, &task, err, sizeof err) < 0)
		die(EXIT_USAGE, "%s", err);
	/* the built candidate: cand.so, or a Triton candidate's screened source */
	sopath = sibling(o->out, triton ? "cand.py" : "cand.so");
	tempadd(sopath); /* until the record is written: a failed run leaves no cand.so to be read as built */
	entry = task.entry;
	text = jstr(json_object_get(resp, "answer"), "text", "");
	if (statusof(resp, STAGE_ANSWER) == ST_DONE) {
		setstatus(rec = json_object(), STAGE_COMPILE, ST_DONE);
		goto write;
	}
	if (strlen(text) > MAX_ANSWER) {
		rec = json_pack("{s:s}", "reason", "the answer is larger than 2 MiB");
		setstatus(rec, STAGE_COMPILE, ST_NO_CODE);
		goto write;
	}
	nb = findblocks(text, blocks, sizeof blocks / sizeof blocks[0]);
	if ((pick = pickblock(blocks, nb, entry, triton, &defines, &others)) < 0) {
		rec = json_pack("{s:s}", "reason", nb == 0 ? "the answer has no fenced code block"
		                : others ? triton ? "no Python code block (the blocks are in other languages, or too large)"
		                                  : "no C/CUDA code block (the blocks are in other languages, or too large)"
		                         : "no usable code block");
		setstatus(rec, STAGE_COMPILE, ST_NO_CODE);
		goto write;
	}
	rec = blockjson(&blocks[pick], pick, nb, defines, entry, triton);
	built = triton ? buildtriton(o, &task, blocks[pick].start, blocks[pick].len, sopath)
	               : buildcandidate(o, &task, blocks[pick].start, blocks[pick].len, sopath);
	json_object_update(rec, built);
	json_decref(built);
write:
	if (triton)
		json_object_set_new(rec, "lang", json_string("triton"));
	if (statusof(rec, STAGE_COMPILE) != ST_OK && writefile(sopath, "", 0) < 0)
		die(EXIT_RETRY, "cannot write '%s':", sopath);
	if (jwrite(o->out, rec) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	tempkeep(sopath);
	json_decref(rec);
	taskfree(&task);
	json_decref(resp);
	free(sopath);
	return 0;
}

/* --screen or --object: one file's violations, printed */
static int
checkfile(const struct opts *o, const char *path, int object, const char *entry, const char *allowlist)
{
	struct buf b;
	json_t *allow = json_array(), *v, *rec = json_object(), *reserved = reservednamesof(o->nvcc);
	char *copy, *t, *save = NULL, *s, *dir, *cu, err[512];

	if (allowlist) {
		copy = xstrdup(allowlist);
		for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			json_array_append_new(allow, json_string(t));
		free(copy);
	}
	if (object) {
		if (!(v = artifactcheck(path, reserved, allow, err, sizeof err)))
			die(EXIT_USAGE, "%s", err);
	} else {
		bufinit(&b, MAX_BLOCK);
		if (readfile(path, &b) < 0)
			die(EXIT_USAGE, "cannot read '%s':", path);
		if (!(dir = tempdir("/tmp/retort-screen", "screen")))
			die(EXIT_RETRY, "cannot create a folder in '/tmp':");
		cu = xasprintf("%s/cand.cu", dir);
		if (writefile(cu, b.s, b.n) < 0)
			die(EXIT_RETRY, "cannot write '%s':", cu);
		{ /* built as a candidate is, so that the screen reads what it reads */
			char *af = archflag(o->arch), *flags = buildflags(af);
			struct run built;
			v = screensource(o, dir, "cand.cu", &(struct screenrules){ entry, allow, reserved }, flags, &built, rec);
			buffree(&built.log);
			free(flags);
			free(af);
		}
		if (!v) /* nvcc refused it: its diagnostics */
			v = json_pack("[{s:s,s:i,s:O}]", "rule", statusname(statusof(rec, STAGE_COMPILE)), "line", 0, "message",
			              json_object_get(rec, "diagnostics") ? json_object_get(rec, "diagnostics")
			                                                  : json_object_get(rec, "reason"));
		tempdone(dir);
		free(dir);
		free(cu);
		buffree(&b);
	}
	s = jdumps(v, JSON_INDENT(1) | JSON_SORT_KEYS);
	printf("%s\n", s);
	free(s);
	json_decref(v);
	json_decref(rec);
	json_decref(allow);
	json_decref(reserved);
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_RETRY, "cannot write the violations:");
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, "nvcc", "sm_90a", NULL, 120, 8192, NVCC_WORK_MB, 0, "cuda", "out/tritonenv", "src/runtime" };
	const char *screenpath = NULL, *objpath = NULL, *entry = NULL, *allow = NULL;
	struct optlist in;
	char *nvcc;
	int r;
	struct opt tab[] = {
		{ "-o", "FILE", OPT_STR, &o.out, 0, 0, "the output, COMPILE_JSON (cand.so goes beside it)" },
		OPTS_NVCC(&o.nvcc, &o.arch),
		{ "--cache-dir", "DIR", OPT_STR, &o.cachedir, 0, 0, "the build cache (default: no cache)" },
		{ "--time-limit", "S", OPT_INT, &o.timelimit, 1, 86400, "nvcc's wall-clock limit (default 120)" },
		{ "--mem-limit", "MB", OPT_INT, &o.memlimit, 256, 1 << 20, "nvcc's address-space limit (default 8192)" },
		{ "--disk-limit", "MB", OPT_INT, &o.disklimit, 1, 1 << 20, "what a build may write, its files and /tmp "
		  "(default 256)" },
		{ "--no-screen", NULL, OPT_FLAG, &o.noscreen, 0, 0, "skip the screen and the object check (the GPU suite)" },
		{ "--lang", "L", OPT_STR, &o.lang, 0, 0, "the candidate's language: cuda or triton (default cuda)" },
		{ "--triton-env", "DIR", OPT_STR, &o.tritonenv, 0, 0, "--lang triton: the environment with Triton "
		  "(default out/tritonenv)" },
		{ "--runtime", "DIR", OPT_STR, &o.runtime, 0, 0, "--lang triton: tritonscreen.py and tritonaot.py "
		  "(default src/runtime)" },
		{ "--screen", "FILE.cu", OPT_STR, &screenpath, 0, 0, "print the screen's violations of one file" },
		{ "--entry", "NAME", OPT_STR, &entry, 0, 0, "--screen: the entry point's name" },
		{ "--object", "FILE.so", OPT_STR, &objpath, 0, 0, "print the object check's violations of a built object" },
		{ "--allow", "RULE,...", OPT_STR, &allow, 0, 0, "--screen, --object: the rules the task allows" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, 2, 0 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (strncmp(o.arch, "sm_", 3) || !isdigit((unsigned char)o.arch[3]))
		die(EXIT_USAGE, "--arch looks like sm_90 or sm_90a: '%s'", o.arch);
	if (strcmp(o.lang, "cuda") && strcmp(o.lang, "triton"))
		die(EXIT_USAGE, "--lang is cuda or triton: '%s'", o.lang);
	if (!strcmp(o.lang, "triton") && (screenpath || objpath || o.noscreen))
		die(EXIT_USAGE, "--lang triton: --screen, --object and --no-screen are CUDA's (tritonscreen.py screens "
		    "a file by itself)");
	if (screenpath && !entry)
		die(EXIT_USAGE, "--screen needs --entry NAME");
	if (screenpath && objpath)
		die(EXIT_USAGE, "--screen or --object, not both");
	if (!screenpath && !objpath && !o.out)
		optdie(&spec, "need -o");
	if (!screenpath && !objpath && in.n != 2)
		optdie(&spec, "need TASK_JSON and RESPONSE_JSON");
	if (!strcmp(o.lang, "triton") && !screenpath && !objpath) {
		char *py = xasprintf("%s/bin/python", o.tritonenv);
		int missing = access(py, X_OK) != 0;
		free(py);
		if (missing)
			die(EXIT_USAGE, "the Triton environment '%s' is missing (no bin/python): run ./configure "
			    "--lang=triton --install-deps", o.tritonenv);
	}
	if (!screenpath && !objpath && jailweak())
		die(EXIT_USAGE, "%s", jailweak());
	if ((nvcc = findprog(o.nvcc))) /* else as given: running it says what is wrong */
		o.nvcc = nvcc;
	r = screenpath || objpath ? checkfile(&o, screenpath ? screenpath : objpath, !screenpath, entry, allow)
	                          : candidate(&o, in.v[0], in.v[1]);
	free(nvcc);
	optfree(&in);
	return r;
}

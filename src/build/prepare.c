/*
 * NAME
 *     prepare - build the programs that run and judge a variant's candidates
 *
 * SYNOPSIS
 *     prepare --runtime [options] -o OBJECT
 *     prepare --harness [options] -o BINARY TASK_JSON
 *     prepare --refrunner [options] -o OBJECT
 *     prepare --reference [options] [--runner OBJECT] -o BINARY TASK_JSON
 *     prepare --baseline [options] -o BASELINE_SO TASK_JSON
 *
 * DESCRIPTION
 *     --runtime links the harness's fixed parts (src/runtime/: the
 *     protocol loop, the lockdown, the runtime guard, the device code)
 *     into one relocatable OBJECT, and beside it the Python harness's
 *     side in py/. --refrunner compiles the CPU reference runner's fixed
 *     parts the same way. Both are retort's code, built outside the
 *     sandbox.
 *     Per variant, from TASK_JSON: --harness links OBJECT with the
 *     generated call of the entry point; --reference compiles the spec's
 *     reference with the generated call, in the sandbox, and links it
 *     with the runner's object; --baseline builds the spec's baseline
 *     with nvcc in the sandbox into the shared object that verify and
 *     bench run as the GPU oracle. A baseline that does not build, or a
 *     proposal's reference that does not build, is left empty with a .log
 *     beside it saying why. A hand-written reference that does not build
 *     is the spec's error. With --cache-dir the three are kept in the
 *     build cache under the key of what went into them (compiler version,
 *     generated source, linked objects), and a build whose key is there
 *     is a copy: an edit of a spec's prompt or rounds builds nothing again.
 *
 * FILES
 *     out/runtime/harness.o, out/runtime/py/, out/runtime/refrun.o;
 *     out/v/<variant>/harness, reference, baseline.so, and their .log;
 *     DIR/prep/ (--cache-dir DIR): the kept builds.
 *
 * EXIT STATUS
 *     0 written, a baseline that does not build included; 1 cannot run the
 *     compilers or write, or a compiler failed on a full disk: no output
 *     is left; 2 bad usage or input, a reference that does not build.
 *
 * SEE ALSO
 *     doc/verification.md, doc/pipeline.md
 */
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/task.h"
#include "../lib/buildcache.h"
#include "../lib/json.h"
#include "nvcc.h"
#include "../lib/opts.h"
#include "../jail/sandbox.h"
#include "../lib/sha.h"
#include "../lib/tensor.h"
#include "../lib/util.h"
#include "../runtime/guard.h"

/* every symbol bound at load and the tables read-only after it: no slot of
 * the harness's (its clocks, its event calls) can be rewritten */
#define RELRO "-Wl,-z,relro,-z,now"

static const char usage[] =
	"usage: prepare --runtime [options] -o OBJECT\n"
	"       prepare --harness [options] -o BINARY TASK_JSON\n"
	"       prepare --refrunner [options] -o OBJECT\n"
	"       prepare --reference [options] [--runner OBJECT] -o BINARY TASK_JSON\n"
	"       prepare --baseline [options] -o BASELINE_SO TASK_JSON\n";

struct opts {
	const char *out, *nvcc, *arch, *cc, *src, *runtime, *cudart, *fake, *runner, *gpupython, *cachedir;
	int timelimit, memlimit;
};

/*
 * A variant's harness, reference and baseline are kept in the build cache
 * (--cache-dir: buildcache.h, area "prep") under the key of what went into
 * them: prepare's own build, the compiler's version (not the system's
 * headers and libraries), the generated sources and the objects they link,
 * every file's bytes. Only builds that succeeded are kept.
 */

/* a key begun: its kind, and the compiler's version (nvcc's or cc's) */
static void
keybegin(struct sha *h, const char *kind, const char *compiler, int isnvcc)
{
	char *v = isnvcc ? nvccversion(compiler) : ccversion(compiler);

	if (!v)
		die(EXIT_RETRY, "cannot run '%s --version':", compiler);
	shainit(h);
	cacheself(h);
	shaaddfield(h, kind);
	shaaddfield(h, v);
	free(v);
}

/* the runtime object (retort's, built by prepare --runtime) into the key,
 * without the pid in nvcc's temporary names ("tmpxft_" and 8 hex digits),
 * the one thing two builds of it differ in. Only this object: in a spec's
 * source the same bytes would be the spec's to choose */
static void
keyruntime(struct sha *h, const char *path)
{
	static const char tmpxft[] = "tmpxft_";
	struct buf b;
	char *p;
	size_t off;

	bufinit(&b, (size_t)1 << 31);
	if (readfile(path, &b) < 0)
		die(EXIT_RETRY, "cannot read '%s':", path);
	for (off = 0; off < b.n && (p = memmem(b.s + off, b.n - off, tmpxft, 7)); off = (size_t)(p - b.s) + 7)
		if ((size_t)(p - b.s) + 15 <= b.n)
			memset(p + 7, 'X', 8);
	cachekeydata(h, b.s, b.n);
	buffree(&b);
}

/* the cached build of key into path (1), or 0: none, or no cache */
static int
fromcache(const struct opts *o, const char *key, const char *path)
{
	struct cachefile f = { "out", path, 0 };

	return o->cachedir && cacheget(o->cachedir, "prep", key, &f, 1);
}

/* a build that succeeded, path, into the cache as key's */
static void
tocache(const struct opts *o, const char *key, const char *path)
{
	struct cachefile f = { "out", path, 0 };

	if (o->cachedir)
		cacheput(o->cachedir, "prep", key, &f, 1);
}

/* run a trusted compiler step; its output is printed when it fails */
static void
build(char *const argv[], const char *dir, const char *what)
{
	struct runlimits lim = { 600, 8192, 2048, NULL };
	struct run r;

	if (runcapture(argv, dir, NULL, &lim, 1 << 20, &r) < 0)
		die(EXIT_RETRY, "cannot run '%s':", argv[0]);
	if (r.status != 0) {
		fprintf(stderr, "%s", r.log.s);
		die(EXIT_RETRY, "building %s failed (status %d, above)%s", what, r.status,
		    nospace(dir, 0) ? ": the disk is full" : "");
	}
	buffree(&r.log);
}

/* from's bytes into to, atomically, left alone when unchanged (restat) */
static void
publish(const char *from, const char *to, mode_t mode)
{
	if (copyfile(from, to) < 0 || chmod(to, mode) < 0)
		die(EXIT_RETRY, "cannot write '%s':", to);
}

/* a folder of our own beside the output, gone on every way out */
static char *
workdir(const char *out)
{
	char *abs, *d;

	if (mkparent(out) < 0)
		die(EXIT_RETRY, "cannot create a folder for '%s':", out);
	abs = absolute(out);
	d = tempdir(abs, "work");
	free(abs);
	if (!d)
		die(EXIT_RETRY, "cannot create a folder for '%s':", out);
	return d;
}

/* ---------------------------------------------------------- --runtime */

/* DIR as a Python environment (its real path, malloc'd), or NULL when it has no bin/python */
static char *
pyenvdir(const char *dir)
{
	char *real = realpath(dir, NULL), *py = real ? xasprintf("%s/bin/python", real) : NULL;
	int ok = py && access(py, X_OK) == 0;

	free(py);
	if (!ok)
		free(real);
	return ok ? real : NULL;
}

/* a file of the bytecode's tree made ours, and read-only to the rest */
static int
ownfile(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (lchown(path, getuid(), getgid()) < 0)
		return -1;
	return flag == FTW_SL ? 0 : chmod(path, (st->st_mode & 0755) | (flag == FTW_D ? 0755 : 0644));
}

/*
 * The bytecode of what a Python harness imports (the standard library's
 * part, numpy, torch, triton: each where the environment has it), made in
 * a jail like the harness's, so for the paths its Python sees, into
 * py/pycache (made anew beside it, owned by us and read-only to others,
 * then renamed into place), with the environment's path in its file env;
 * the harness reads it there (-X pycache_prefix) when that names its
 * environment. An environment installed without bytecode would otherwise
 * compile torch at every harness start: the harness's Python writes none
 * (-B, its environment read-only). Modules imported later (torch's
 * compilers, say) are not in it: Python compiles those as before.
 */
static void
pycache(const struct opts *o, const char *pydir)
{
	static const char imports[] = "import ctypes, importlib.machinery, importlib.util, json, struct, traceback\n"
		"for m in ('numpy', 'torch', 'torch.nn', 'torch.nn.functional', 'triton', 'triton.language'):\n"
		"    try:\n        importlib.import_module(m)\n    except Exception:\n        pass\n";
	char *dst = xasprintf("%s/pycache", pydir), *tmp, *py = xasprintf("%s/bin/python", o->gpupython), *pyc, *env;
	char *argv[] = { JAILVENV "/bin/python", "-I", "-X", "pycache_prefix=/work/pyc", "-c", (char *)imports, NULL };
	const char *progs[] = { py, NULL };
	struct jail j;
	struct runlimits lim = { 600, 0, 4096, &j };
	struct run r;

	tempsweep(dst, "tmp");
	tmp = tempname(dst, "tmp");
	pyc = xasprintf("%s/pyc", tmp);
	env = xasprintf("%s/env", pyc);
	if (mkdirp(tmp) < 0) /* pyc/ in it is Python's to make: the jail's uid owns tmp alone */
		die(EXIT_RETRY, "cannot create '%s':", tmp);
	tempadd(tmp);
	memset(&j, 0, sizeof j);
	j.work = tmp;
	j.venv = o->gpupython;
	jailaddpaths(&j, progs);
	if (runcapture(argv, tmp, NULL, &lim, 1 << 16, &r) < 0)
		die(EXIT_RETRY, "cannot run '%s':", py);
	jailfreepaths(&j);
	if (r.timedout)
		die(EXIT_RETRY, "cannot compile the imports of '%s': it ran past %d s", o->gpupython, lim.seconds);
	if (r.status != 0)
		die(EXIT_RETRY, "cannot compile the imports of '%s' (status %d): %.2000s", o->gpupython, r.status, r.log.s);
	buffree(&r.log);
	if (mkdirp(pyc) < 0 || writefile(env, o->gpupython, strlen(o->gpupython)) < 0 || nftw(pyc, ownfile, 32, FTW_PHYS) != 0)
		die(EXIT_RETRY, "cannot write '%s':", pyc);
	if (rmtree(dst) < 0 || rename(pyc, dst) < 0)
		die(EXIT_RETRY, "cannot write '%s':", dst);
	tempdone(tmp);
	free(tmp); free(dst); free(py); free(pyc); free(env);
}

/* the Python harness at TO: the C tables it needs (the dtypes' names,
 * sizes and whether they are floating; the argument kinds' numbers), then
 * PY (src/runtime/pyharness.py) */
static void
pyharness(const char *py, const char *to)
{
	struct buf b;
	int i;

	bufinit(&b, 1 << 22);
	bufputs(&b, "# written by prepare --runtime: the C tables (src/lib/tensor.c, task.c), then pyharness.py\n"
	        "DTYPES = {");
	for (i = 0; i < DT_COUNT; i++)
		bufprintf(&b, "%s\"%s\": (%d, %d)", i ? ", " : "", dtinfos[i].name, dtinfos[i].size, dtinfos[i].isfloat);
	bufputs(&b, "}\nKINDS = {");
	for (i = 0; i < ARG_KINDS; i++)
		bufprintf(&b, "%s\"%s\": %d", i ? ", " : "", argkinds[i], i);
	bufputs(&b, "}\n");
	if (readfile(py, &b) < 0)
		die(EXIT_USAGE, "cannot read '%s':", py);
	if (writefile(to, b.s, b.n) < 0 || chmod(to, 0644) < 0)
		die(EXIT_RETRY, "cannot write '%s':", to);
	buffree(&b);
}

/* the runtime as a shared object, and its Python side, in a folder of
 * their own beside OUT (py/: the sandbox binds it for a Python entry
 * point): src/runtime/pyharness.py loads harness.so and runs the
 * protocol's loop with a Python function as the entry point */
static void
pyruntime(const struct opts *o, const char *work, const char *obj)
{
	char *dir = xasprintf("%s", o->out), *s = strrchr(dir, '/'), *so = xasprintf("%s/harness.so", work);
	char *cuda = nvccroot(o->nvcc), *libdir = xasprintf("-L%s/lib64", cuda), *rpath = xasprintf("-Wl,-rpath,%s/lib64", cuda);
	char *py = xasprintf("%s/runtime/pyharness.py", o->src), *pydir, *to;

	if (s)
		*s = 0;
	pydir = xasprintf("%s/py", s ? dir : ".");
	if (o->fake)
		build((char *[]){ (char *)o->cc, "-shared", "-o", so, (char *)obj, RELRO, "-ldl", "-lpthread", "-lm", NULL },
		      work, "the Python harness's runtime");
	else
		build((char *[]){ (char *)o->cc, "-shared", "-o", so, (char *)obj, RELRO, libdir, rpath, "-lcudart", "-lstdc++",
		                  "-ldl", "-lpthread", "-lm", NULL }, work, "the Python harness's runtime");
	if (mkdirp(pydir) < 0)
		die(EXIT_RETRY, "cannot create '%s':", pydir);
	to = xasprintf("%s/harness.so", pydir);
	publish(so, to, 0644);
	free(to);
	to = xasprintf("%s/harness.py", pydir);
	pyharness(py, to);
	free(to);
	if (o->gpupython)
		pycache(o, pydir);
	else if (rmtree(to = xasprintf("%s/pycache", pydir)) < 0) /* no other environment's */
		die(EXIT_RETRY, "cannot remove '%s':", to);
	else
		free(to);
	free(dir); free(so); free(cuda); free(libdir); free(rpath); free(py); free(pydir);
}

/* how the runtime's and the runner's own C is built: as the tools are
 * (-Werror: a warning there is a bug in trusted code, never the teacher's) */
#define WARN "-Wall", "-Wextra", "-Werror"

/* the library files the harness runtime and the reference runner are
 * built with, each on its own (no util.c, no archives): relative to src */
static const char *const libparts[] = { "lib/tensor.c", "lib/parts.c", NULL };

static int
runtime(const struct opts *o)
{
	char *work = workdir(o->out), *cuda = nvccroot(o->nvcc), *inc = xasprintf("-I%s/include", cuda);
	char *rt = xasprintf("%s/runtime", o->src), *lib = xasprintf("-I%s/lib", o->src), *rti = xasprintf("-I%s", rt);
	char *af = archflag(o->arch), *obj = xasprintf("%s/runtime.o", work), *list = xasprintf("%s.list", o->out);
	char *marker = xasprintf("%s.fake", o->out);
	static const char *const parts[] = { "harness", "lockdown", "launches", NULL };
	char *objs[8], *src;
	int n = 0;

	for (const char *const *p = parts; *p; p++) {
		src = xasprintf("%s/%s.c", rt, *p);
		objs[n] = xasprintf("%s/%s.o", work, *p);
		build((char *[]){ (char *)o->cc, "-std=gnu11", "-O2", WARN, "-fPIC", "-D_GNU_SOURCE", lib, rti, inc, "-c",
		                  src, "-o", objs[n], NULL }, work, src);
		free(src);
		n++;
	}
	for (const char *const *p = libparts; *p; p++) {
		src = xasprintf("%s/%s", o->src, *p);
		objs[n] = xasprintf("%s/lib%d.o", work, (int)(p - libparts));
		build((char *[]){ (char *)o->cc, "-std=gnu11", "-O2", WARN, "-fPIC", "-ffp-contract=off", "-D_GNU_SOURCE",
		                  lib, "-c", src, "-o", objs[n++], NULL }, work, src);
		free(src);
	}
	if (o->fake) {
		objs[n] = xasprintf("%s/fake.o", work);
		build((char *[]){ (char *)o->cc, "-std=gnu11", "-O2", WARN, "-fPIC", "-D_GNU_SOURCE", lib, rti, "-c",
		                  (char *)o->fake, "-o", objs[n++], NULL }, work, o->fake);
	} else {
		src = xasprintf("%s/guard.c", rt);
		objs[n] = xasprintf("%s/guard.o", work);
		build((char *[]){ (char *)o->cc, "-std=gnu11", "-O2", WARN, "-fPIC", "-D_GNU_SOURCE", inc, "-c", src, "-o",
		                  objs[n++], NULL }, work, src);
		free(src);
		src = xasprintf("%s/device.cu", rt);
		objs[n] = xasprintf("%s/device.o", work);
		build((char *[]){ (char *)o->nvcc, af, "-O2", "-fmad=false", "-Xcompiler", "-fPIC", lib, rti, "-c", src, "-o",
		                  objs[n++], NULL }, work, src);
		free(src);
	}
	{
		char *argv[16];
		int k = 0;
		argv[k++] = (char *)o->cc;
		argv[k++] = "-r";
		argv[k++] = "-nostdlib";
		argv[k++] = "-o";
		argv[k++] = obj;
		for (int i = 0; i < n; i++)
			argv[k++] = objs[i];
		argv[k] = NULL;
		build(argv, work, "the harness's runtime");
	}
	pyruntime(o, work, obj);
	if (writefile(list, GUARD_EXPORTS, sizeof GUARD_EXPORTS - 1) < 0 ||
	    (o->fake ? writefile(marker, "", 0) < 0 : unlink(marker) < 0 && errno != ENOENT))
		die(EXIT_RETRY, "cannot write '%s':", list);
	publish(obj, o->out, 0644);
	tempdone(work);
	for (int i = 0; i < n; i++)
		free(objs[i]);
	free(work); free(cuda); free(inc); free(rt); free(lib); free(rti); free(af); free(obj); free(list); free(marker);
	return 0;
}

/* ---------------------------------------------------------- --harness */

/* s as a C string literal, a line of s a line of the literal */
static void
cliteral(struct buf *b, const char *s)
{
	bufputc(b, '"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '\\' || ch == '"')
			bufprintf(b, "\\%c", ch);
		else if (ch == '\n')
			bufputs(b, s[1] ? "\\n\"\n\t\"" : "\\n");
		else if (ch < 32 || ch >= 127 || ch == '?') /* '?': no trigraphs */
			bufprintf(b, "\\%03o", ch);
		else
			bufputc(b, (char)ch);
	}
	bufputc(b, '"');
}

/* a Python reference's call: the tables pycall.c reads (the runner's
 * text, the header it sends, the interpreter) */
static void
pythoncall(struct buf *b, const struct task *t, const char *runner)
{
	json_t *args = json_array(), *head;
	char *text;

	for (int i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		json_array_append_new(args, json_pack("{s:s,s:s,s:s,s:s}", "name", a->name, "kind", argkinds[a->kind],
		                                      "dtype", dtinfos[a->dt].name, "ref",
		                                      abitype(a->kind, a->dt, 1)));
	}
	head = json_pack("{s:s,s:o}", "source", jstr(t->json, "reference", ""), "args", args);
	text = json_dumps(head, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENSURE_ASCII);
	bufputs(b, "const char pyref_python[] = \"" JAILVENV "/bin/python\";\nconst char pyref_header[] =\n\t");
	cliteral(b, text);
	bufputs(b, " \"\\n\";\nconst char pyref_runner[] =\n\t");
	cliteral(b, runner);
	bufputs(b, ";\n");
	free(text);
	json_decref(head);
}

static void
callsource(const struct task *t, int reference, const char *runner, const char *path)
{
	struct abiarg a[MAXARGS];
	size_t n = taskabi(t, a);
	struct buf b;

	bufinit(&b, 1 << 22);
	bufprintf(&b, "/* generated by retort's prepare for %s: do not edit */\n#include <stdint.h>\n", t->id);
	if (reference && runner) {
		pythoncall(&b, t, runner);
	} else if (reference) {
		char *sig = abisignature(a, n, "reference", 1);
		bufprintf(&b, "#include <stddef.h>\n#include <stdlib.h>\n#include <string.h>\n#include <math.h>\n"
		          "#include <float.h>\n#include <limits.h>\n#include \"refrun.h\"\n#line 1 \"reference\"\n%s\n"
		          "#line 1 \"call\"\n%s;\nint\nreferencedone(void)\n{\n\treturn 0;\n}\nint\nreferenceforks(void)\n{\n\treturn 1;\n}\n"
		          "void\ncallreference(const struct refcase *rc)\n{\n\tvoid *fn = (void *)reference, "
		          "*const *ptrs = rc->ptrs;\n\tconst int64_t *sizes = rc->sizes;\n"
		          "\tconst double *scalars = rc->scalars;\n", jstr(t->json, "reference", ""), sig);
		free(sig);
	} else {
		bufputs(&b, "void\ncallentry(void *fn, void **ptrs, const int64_t *sizes, const double *scalars)\n{\n");
	}
	if (!(reference && runner)) {
		abicall(&b, a, n);
		bufputs(&b, "}\n");
	}
	if (!reference) /* the protocol's loop: src/runtime/harness.h */
		bufputs(&b, "int harnessmain(int, char **, void (*)(void *, void **, const int64_t *, const double *), "
		            "void (*)(void), int, const char *);\nint\nmain(int argc, char **argv)\n{\n"
		            "\treturn harnessmain(argc, argv, callentry, 0, 0, 0);\n}\n");
	if (writefile(path, b.s, b.n) < 0)
		die(EXIT_RETRY, "cannot write '%s':", path);
	buffree(&b);
}

static int
harness(const struct opts *o, const struct task *t)
{
	char *out = absolute(o->out), *dir = xasprintf("%s.src", out), *call = xasprintf("%s/call.c", dir);
	char *work = workdir(o->out);
	char *tmp = xasprintf("%s/harness", work), *rt = absolute(o->runtime), *list = xasprintf("-Wl,--dynamic-list=%s.list", rt);
	char *marker = xasprintf("%s.fake", rt), *cuda = nvccroot(o->nvcc), *libdir = xasprintf("-L%s/lib64", cuda);
	char *rpath = xasprintf("-Wl,-rpath,%s/lib64", cuda), *argv[24], key[65];
	int k = 0, fake = access(marker, F_OK) == 0;
	struct sha h;

	if (mkdirp(dir) < 0)
		die(EXIT_RETRY, "cannot create '%s':", dir);
	tempadd(dir); /* the harness's source goes too when the harness is not built */
	callsource(t, 0, NULL, call);
	if (o->cachedir) {
		keybegin(&h, "harness", o->cc, 0);
		cachekeyfile(&h, call);
		keyruntime(&h, rt);
		shaaddfield(&h, fake ? "fake" : cuda);
		if (!fake)
			cachekeyfile(&h, list + strlen("-Wl,--dynamic-list="));
		shahex(&h, key);
	}
	argv[k++] = (char *)o->cc;
	argv[k++] = "-O2";
	argv[k++] = "-o";
	argv[k++] = tmp;
	argv[k++] = call;
	argv[k++] = rt;
	argv[k++] = RELRO;
	if (fake) {
		argv[k++] = "-rdynamic"; /* the fake device's hooks, for the test candidates */
	} else {
		argv[k++] = list;
		argv[k++] = libdir;
		argv[k++] = rpath;
		argv[k++] = "-lcudart";
		argv[k++] = "-lstdc++";
	}
	argv[k++] = "-ldl";
	argv[k++] = "-lpthread";
	argv[k++] = "-lm";
	argv[k] = NULL;
	if (!fromcache(o, key, tmp)) {
		build(argv, work, "the harness");
		tocache(o, key, tmp);
	}
	publish(tmp, o->out, 0755);
	tempkeep(dir);
	tempdone(work);
	free(out); free(dir); free(call); free(work); free(tmp); free(rt); free(list); free(marker); free(cuda); free(libdir);
	free(rpath);
	return 0;
}

/* -------------------------------------------------------- --reference */

/* the runner's fixed parts (refrun.c and libparts: trusted code) compiled
 * outside the sandbox into one relocatable object, obj, in work */
static void
runnerobject(const struct opts *o, const char *work, const char *obj)
{
	enum { NPARTS = sizeof libparts / sizeof libparts[0] }; /* refrun.c and libparts (less its NULL) */
	char *lib = xasprintf("-I%s/lib", o->src), *objs[NPARTS];
	size_t i;

	for (i = 0; i < NPARTS; i++) {
		char *src = xasprintf("%s/%s", o->src, i ? libparts[i - 1] : "runtime/refrun.c");
		objs[i] = xasprintf("%s/part%zu.o", work, i);
		/* -O3 -fno-math-errno: tensor.c's fill loops vectorise (as configure builds it) */
		build((char *[]){ (char *)o->cc, "-std=gnu11", "-O3", "-fno-math-errno", WARN, "-ffp-contract=off", lib,
		                  "-c", src, "-o", objs[i], NULL }, work, src);
		free(src);
	}
	{
		char *argv[NPARTS + 6] = { (char *)o->cc, "-r", "-nostdlib", "-o", (char *)obj };
		for (i = 0; i < NPARTS; i++)
			argv[5 + i] = objs[i];
		build(argv, work, "the reference runner");
	}
	for (i = 0; i < NPARTS; i++)
		free(objs[i]);
	free(lib);
}

/* --refrunner: the runner's object, once per build */
static int
refrunner(const struct opts *o)
{
	char *work = workdir(o->out), *obj = xasprintf("%s/refrun.o", work);

	runnerobject(o, work, obj);
	publish(obj, o->out, 0644);
	tempdone(work);
	free(work), free(obj);
	return 0;
}

/* the reference built in work from call.c, in the sandbox: 1, or 0 for a
 * proposal's that does not build (its log at logpath, an empty output);
 * any other failure ends prepare */
static int
refbuild(const struct opts *o, const struct task *t, const char *work, int python, const char *logpath)
{
	const char *progs[] = { o->cc, NULL };
	struct jail j;
	struct runlimits lim = { 300, 8192, 512, &j };
	struct run r;
	char *argv[16];
	int k = 0, built = 1;

	memset(&j, 0, sizeof j);
	j.work = work;
	j.workmb = NVCC_WORK_MB; /* what the build may write: its folder's growth and /tmp */
	jailaddpaths(&j, progs); /* a compiler outside the minimal root */
	argv[k++] = (char *)o->cc;
	argv[k++] = "-std=gnu11";
	argv[k++] = "-O2";
	argv[k++] = "-w";
	argv[k++] = "-ffp-contract=off";
	argv[k++] = "-o";
	argv[k++] = "reference";
	argv[k++] = "call.c";
	if (python)
		argv[k++] = "pycall.c";
	argv[k++] = "refrun.o";
	argv[k++] = "-lpthread";
	argv[k++] = "-lm";
	argv[k] = NULL;
	if (runcapture(argv, work, NULL, &lim, 1 << 20, &r) < 0)
		die(EXIT_RETRY, "cannot run '%s':", o->cc);
	jailfreepaths(&j);
	if (r.diskfull) { /* the source's doing, however the compiler ended */
		bufreset(&r.log);
		bufprintf(&r.log, "the reference's build wrote more than %d MiB (its folder and /tmp): refused\n",
		          NVCC_WORK_MB);
		r.status = 1;
		r.timedout = 0;
	}
	if (r.status != 0 && nospace(work, 0)) {
		fprintf(stderr, "%s", r.log.s);
		die(EXIT_RETRY, "building the reference for %s failed: the disk is full ('%s')", t->id, work);
	} else if (r.status != 0 && r.status < 128 && !r.timedout && taskproposed(t)) {
		/* a proposal's: the teacher's error, recorded (verify --expected refuses it) */
		warn("the reference of %s does not build (see %s): its variant is refused", t->id, logpath);
		if (writefile(logpath, r.log.s ? r.log.s : "", r.log.n) < 0 || writefile(o->out, "", 0) < 0)
			die(EXIT_RETRY, "cannot write '%s':", o->out);
		built = 0;
	} else if (r.status != 0) {
		/* a reference that does not build is the spec's error */
		fprintf(stderr, "%s", r.log.s);
		die(r.status > 0 && r.status < 128 && !r.timedout ? EXIT_USAGE : EXIT_RETRY,
		    "building the reference for %s failed (status %d, above)", t->id, r.status);
	}
	buffree(&r.log);
	return built;
}

static int
reference(const struct opts *o, const struct task *t)
{
	static const char *const copies[][2] = { { "runtime/refrun.h", "refrun.h" }, { "lib/tensor.h", "tensor.h" },
	                                         { "lib/draw.h", "draw.h" }, { "lib/dtype.h", "dtype.h" },
	                                         { "runtime/pycall.c", "pycall.c" } };
	char *work = workdir(o->out), *call = xasprintf("%s/call.c", work), *runner = NULL;
	char *obj = xasprintf("%s/refrun.o", work), *bin = xasprintf("%s/reference", work);
	char *logpath = xasprintf("%s.log", o->out), key[65];
	int python = taskpython(t), built;
	size_t i, ncopies = sizeof copies / sizeof copies[0] - !python;
	struct sha h;

	if (!json_is_string(json_object_get(t->json, "reference")))
		die(EXIT_USAGE, "%s: the task has no reference", t->id);
	for (i = 0; i < ncopies; i++) {
		char *from = xasprintf("%s/%s", o->src, copies[i][0]), *to = xasprintf("%s/%s", work, copies[i][1]);
		publish(from, to, 0644);
		free(from);
		free(to);
	}
	if (o->runner) /* built once per build (--refrunner), else here */
		publish(o->runner, obj, 0644);
	else
		runnerobject(o, work, obj);
	if (python) { /* the runner's text goes into call.c: the reference program is one file */
		struct buf text;
		char *path = xasprintf("%s/runtime/pyref.py", o->src);
		bufinit(&text, 1 << 20);
		if (readfile(path, &text) < 0)
			die(EXIT_RETRY, "cannot read '%s':", path);
		runner = bufdetach(&text);
		free(path);
	}
	callsource(t, 1, runner, call);
	if (o->cachedir) {
		keybegin(&h, "reference", o->cc, 0);
		cachekeyfile(&h, call);
		for (i = 0; i < ncopies; i++) {
			char *copy = xasprintf("%s/%s", work, copies[i][1]);
			cachekeyfile(&h, copy);
			free(copy);
		}
		cachekeyfile(&h, obj);
		shahex(&h, key);
	}
	if (fromcache(o, key, bin))
		built = 1;
	else if ((built = refbuild(o, t, work, python, logpath)))
		tocache(o, key, bin);
	if (built) {
		publish(bin, o->out, 0755);
		if (unlink(logpath) < 0 && errno != ENOENT) /* a refused build's, before */
			die(EXIT_RETRY, "cannot remove '%s':", logpath);
	}
	free(logpath);
	tempdone(work);
	free(work);
	free(call);
	free(obj);
	free(bin);
	free(runner);
	return 0;
}

/* --------------------------------------------------------- --baseline */

/* the entry point's signature with the name baseline */
static char *
baselinedecl(const struct task *t)
{
	struct abiarg a[MAXARGS];
	size_t n = taskabi(t, a);

	return abisignature(a, n, "baseline", 0);
}

static int
baseline(const struct opts *o, const struct task *t)
{
	json_t *b = json_object_get(t->json, "baseline"), *lib;
	char *work = workdir(o->out), *cu = xasprintf("%s/baseline.cu", work), *logpath = xasprintf("%s.log", o->out);
	char *decl = baselinedecl(t), *src, *af = archflag(o->arch), *args[48], *so = xasprintf("%s/baseline.so", work);
	char key[65];
	struct run r;
	struct sha h;
	size_t i;
	int ac = 0, nfixed, hit;

	if (!json_is_object(b))
		die(EXIT_USAGE, "%s: the task has no baseline", t->id);
	if (taskbaselinepython(t)) { /* run as it is, by src/runtime/pyharness.py */
		const char *py = jstr(b, "python", "");
		if (writefile(o->out, py, strlen(py)) < 0 || writefile(logpath, "", 0) < 0)
			die(EXIT_RETRY, "cannot write '%s':", o->out);
		tempdone(work);
		free(work); free(cu); free(logpath); free(decl); free(af); free(so);
		return 0;
	}
	src = xasprintf("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <cuda_fp8.h>\n#include <stdint.h>\n"
	                "#line 1 \"baseline\"\n%s\n%s;\n", jstr(b, "code", ""), decl);
	if (writefile(cu, src, strlen(src)) < 0)
		die(EXIT_RETRY, "cannot write '%s':", cu);
	tempadd(o->out); /* neither output is left on exit 1: no empty baseline.so for a disk that was full */
	tempadd(logpath);
	args[ac++] = af;
	args[ac++] = "-O3";
	args[ac++] = "-std=c++17";
	args[ac++] = "-shared";
	args[ac++] = "-Xcompiler";
	args[ac++] = "-fPIC";
	args[ac++] = "-cudart";
	args[ac++] = (char *)o->cudart;
	args[ac++] = "-o";
	args[ac++] = "baseline.so";
	args[ac++] = "baseline.cu";
	nfixed = ac;
	json_array_foreach(json_object_get(b, "libs"), i, lib)
		if (ac < 44)
			args[ac++] = xasprintf("-l%s", json_string_value(lib));
	args[ac] = NULL;
	if (o->cachedir) {
		keybegin(&h, "baseline", o->nvcc, 1);
		for (i = 0; i < (size_t)ac; i++) /* the flags: no path of this build's among them */
			shaaddfield(&h, args[i]);
		cachekeyfile(&h, cu);
		shahex(&h, key);
	}
	memset(&r, 0, sizeof r);
	if (!(hit = fromcache(o, key, so))) {
		if (nvccrun(o->nvcc, args, work, o->timelimit, o->memlimit, NVCC_WORK_MB, &r) < 0)
			die(EXIT_RETRY, "cannot run '%s' in '%s':", o->nvcc, work);
		if (r.status == 0 && !r.timedout)
			tocache(o, key, so);
	}
	if (hit || (r.status == 0 && !r.timedout)) {
		publish(so, o->out, 0755);
		if (writefile(logpath, "", 0) < 0)
			die(EXIT_RETRY, "cannot write '%s':", logpath);
	} else {
		char *d = r.timedout ? xasprintf("nvcc ran longer than %d s\n", o->timelimit) : nvccdiagnostics(r.log.s, work);
		warn("the baseline of %s does not build here; it gives no oracle and no speedup (see %s)", t->id, logpath);
		if (writefile(logpath, d, strlen(d)) < 0 || writefile(o->out, "", 0) < 0)
			die(EXIT_RETRY, "cannot write '%s':", o->out);
		free(d);
	}
	buffree(&r.log);
	tempkeep(o->out);
	tempkeep(logpath);
	tempdone(work);
	while (ac > nfixed)
		free(args[--ac]);
	free(work); free(cu); free(logpath); free(decl); free(src); free(af); free(so);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, "nvcc", "sm_90a", "cc", "src", "out/runtime/harness.o", "shared", NULL, NULL, NULL, NULL,
		          360, 8192 };
	struct optlist in;
	char *nvcc, *cc, *src, *fake = NULL, *gpupython = NULL;
	const char *gpuarg;
	int run = 0, rr = 0, harn = 0, ref = 0, base = 0, r;
	struct task t;
	char err[512];
	struct opt tab[] = {
		{ "-o", "FILE", OPT_STR, &o.out, 0, 0, "the output: OBJECT, BINARY or BASELINE_SO" },
		{ "--runtime", NULL, OPT_FLAG, &run, 0, 0, "build the harness's runtime (once per build)" },
		{ "--refrunner", NULL, OPT_FLAG, &rr, 0, 0, "build the CPU reference runner's fixed parts (once per build)" },
		{ "--harness", NULL, OPT_FLAG, &harn, 0, 0, "build the variant's harness" },
		{ "--reference", NULL, OPT_FLAG, &ref, 0, 0, "build the variant's CPU reference" },
		{ "--baseline", NULL, OPT_FLAG, &base, 0, 0, "build the spec's baseline" },
		OPTS_NVCC(&o.nvcc, &o.arch),
		{ "--cc", "CC", OPT_STR, &o.cc, 0, 0, "the C compiler (default cc)" },
		{ "--src", "DIR", OPT_STR, &o.src, 0, 0, "retort's src folder (default src)" },
		{ "--runner", "OBJECT", OPT_STR, &o.runner, 0, 0, "--reference: the runner's object (--refrunner; else built here)" },
		{ "--fake", "FILE.c", OPT_STR, &o.fake, 0, 0, "--runtime: FILE.c on the CPU for the device and the guard" },
		{ "--gpu-python", "DIR", OPT_STR, &o.gpupython, 0, 0, "--runtime: the GPU's Python environment: its imports' bytecode" },
		{ "--object", "OBJECT", OPT_STR, &o.runtime, 0, 0, "--harness: the runtime (default out/runtime/harness.o)" },
		{ "--cudart", "KIND", OPT_STR, &o.cudart, 0, 0, "--baseline: its CUDA runtime, shared or static (default shared)" },
		{ "--cache-dir", "DIR", OPT_STR, &o.cachedir, 0, 0,
		  "--harness, --reference, --baseline: the build cache (default: no cache)" },
		{ "--time-limit", "S", OPT_INT, &o.timelimit, 1, 86400, "--baseline: nvcc's wall-clock limit (default 360)" },
		{ "--mem-limit", "MB", OPT_INT, &o.memlimit, 256, 1 << 20, "--baseline: nvcc's address-space limit (default 8192)" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, 1, 0 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (run + rr + harn + ref + base != 1)
		optdie(&spec, "say what to build: one of --runtime, --refrunner, --harness, --reference or --baseline");
	if (!o.out)
		optdie(&spec, "need -o");
	if (strcmp(o.cudart, "shared") && strcmp(o.cudart, "static"))
		die(EXIT_USAGE, "--cudart is shared or static: '%s'", o.cudart);
	if (strncmp(o.arch, "sm_", 3) || !isdigit((unsigned char)o.arch[3]))
		die(EXIT_USAGE, "--arch looks like sm_90 or sm_90a: '%s'", o.arch);
	if (run || rr ? in.n != 0 : in.n != 1)
		optdie(&spec, "%s", run || rr ? "--runtime and --refrunner take no TASK_JSON" : "need TASK_JSON");
	if (o.cachedir && (run || rr))
		optdie(&spec, "--cache-dir goes with --harness, --reference or --baseline");
	if (o.runner && !ref)
		optdie(&spec, "--runner OBJECT goes with --reference");
	if (o.runner && access(o.runner, R_OK) != 0)
		die(EXIT_USAGE, "--runner: cannot read '%s':", o.runner);
	gpuarg = o.gpupython;
	if (o.gpupython && !run)
		optdie(&spec, "--gpu-python DIR goes with --runtime");
	if (o.gpupython && !(o.gpupython = gpupython = pyenvdir(o.gpupython)))
		die(EXIT_USAGE, "--gpu-python: no bin/python in '%s'", gpuarg);
	if ((ref || base) && jailweak()) /* the spec's reference and baseline: untrusted code too */
		die(EXIT_USAGE, "%s", jailweak());
	if ((nvcc = findprog(o.nvcc))) /* else as given: running it says what is wrong */
		o.nvcc = nvcc;
	if ((cc = findprog(o.cc)))
		o.cc = cc;
	src = absolute(o.src); /* the compilers run in folders of their own */
	o.src = src;
	if (o.fake)
		o.fake = fake = absolute(o.fake);
	if (run) {
		r = runtime(&o);
	} else if (rr) {
		r = refrunner(&o);
	} else {
		if (taskload(in.v[0], &t, err, sizeof err) < 0)
			die(EXIT_USAGE, "%s", err);
		r = harn ? harness(&o, &t) : ref ? reference(&o, &t) : baseline(&o, &t);
		taskfree(&t);
	}
	free(nvcc);
	free(cc);
	free(src);
	free(fake);
	free(gpupython);
	optfree(&in);
	return r;
}

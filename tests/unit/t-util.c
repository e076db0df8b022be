/* t-util.c - the shared library: buffers, files, sha256, JSON */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/lib/json.h"
#include "../../src/jail/sandbox.h"
#include "../../src/lib/sha.h"
#include "../../src/lib/util.h"
#include "../lib/tap.h"

/* capped buffers: appends under and over the cap, growth */
static void
buffers(void)
{
	struct buf b;

	bufinit(&b, 8);
	ok(bufputs(&b, "abcd") == 0 && b.n == 4 && !strcmp(b.s, "abcd"), "append under the cap");
	ok(bufputs(&b, "efghi") < 0 && b.n == 4 && !strcmp(b.s, "abcd"), "append over the cap fails and changes nothing");
	ok(bufprintf(&b, "%d", 1234) == 0 && !strcmp(b.s, "abcd1234"), "printf up to the cap");
	buffree(&b);
	bufinit(&b, 1 << 20);
	for (int i = 0; i < 1000; i++)
		bufprintf(&b, "line %d with some padding to grow the buffer\n", i);
	ok(b.n > 40000 && strstr(b.s, "line 999 "), "buffer grows");
	buffree(&b);
}

/* writefile writes only changes, readfile reads back within its cap, no temporaries left */
static void
writes(const char *dir)
{
	struct buf b;
	struct stat st1, st2;
	char path[256];

	snprintf(path, sizeof path, "%s/a/b/c.txt", dir);
	is_int(writefile(path, "hello\n", 6), 1, "writefile creates folders and writes");
	stat(path, &st1);
	sleep(1);
	is_int(writefile(path, "hello\n", 6), 0, "same bytes are not rewritten");
	stat(path, &st2);
	ok(st1.st_mtime == st2.st_mtime && st1.st_ino == st2.st_ino, "mtime and inode unchanged (restat)");
	is_int(writefile(path, "hello!\n", 7), 1, "changed bytes are written");
	bufinit(&b, 1 << 20);
	ok(readfile(path, &b) == 0 && !strcmp(b.s, "hello!\n"), "readfile reads it back");
	buffree(&b);
	bufinit(&b, 3);
	ok(readfile(path, &b) < 0 && errno == EFBIG, "readfile respects the cap");
	buffree(&b);
	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "ls %s/a/b | grep -q tmp", dir);
		ok(system(cmd) != 0, "no temporary files left behind");
	}
}

/* mkdirp: a new path, one already there (the one-call way), a file in the way */
static void
folders(const char *dir)
{
	char path[256], file[256];
	struct stat st;

	snprintf(path, sizeof path, "%s/m/n/o", dir);
	ok(mkdirp(path) == 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode), "mkdirp makes every folder of a path");
	ok(mkdirp(path) == 0, "mkdirp of a folder already there");
	snprintf(path, sizeof path, "%s/m/n/p", dir);
	ok(mkdirp(path) == 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode), "mkdirp beside one already there");
	snprintf(file, sizeof file, "%s/m/f", dir);
	need(writefile(file, "x", 1) == 1, "a file");
	ok(mkdirp(file) < 0 && errno == ENOTDIR, "mkdirp where a file is: ENOTDIR");
	snprintf(path, sizeof path, "%s/m/f/g", dir);
	ok(mkdirp(path) < 0 && errno == ENOTDIR, "mkdirp under a file: ENOTDIR");
	ok(mkdirp("") < 0 && errno == ENOENT, "mkdirp of an empty path: ENOENT");
}

/* SHA-256: known digests, fields that cannot run into each other */
static void
sha256s(void)
{
	char hex[65];

	sha256hex("abc", 3, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256 of 'abc'");
	sha256hex("", 0, hex);
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256 of ''");
	{
		struct sha h1, h2;
		char a[65], c[65];
		shainit(&h1); shaaddfield(&h1, "ab"); shaaddfield(&h1, "c"); shahex(&h1, a);
		shainit(&h2); shaaddfield(&h2, "a"); shaaddfield(&h2, "bc"); shahex(&h2, c);
		ok(strcmp(a, c) != 0, "length-prefixed fields cannot run into each other");
	}
}

/* JSON: sorted keys, jwrite and jload, getters, and what jload says of bad files */
static void
jsonfiles(const char *dir)
{
	json_t *j;
	char *s, err[200], path[256];

	j = json_pack("{s:i,s:s,s:[i,i]}", "zeta", 1, "alpha", "x", "mid", 1, 2);
	s = jdumps(j, JFLAGS_LINE);
	is_str(s, "{\"alpha\":\"x\",\"mid\":[1,2],\"zeta\":1}", "JSON keys sorted, compact");
	free(s);
	snprintf(path, sizeof path, "%s/j.json", dir);
	ok(jwrite(path, j) == 1, "jwrite");
	json_decref(j);
	j = jload(path, err, sizeof err);
	ok(j && jint(j, "zeta", 0) == 1 && !strcmp(jstr(j, "alpha", ""), "x"), "jload and getters");
	ok(jint(j, "nope", 7) == 7 && !strcmp(jstr(j, "zeta", "fb"), "fb"), "getters fall back on absent or mistyped keys");
	json_decref(j);
	writefile(path, "{\"a\": 1,\n \"a\": 2}", 17);
	j = jload(path, err, sizeof err);
	ok(!j && strstr(err, "duplicate"), "duplicate keys rejected: %s", err);
	{
		char want[600];
		snprintf(want, sizeof want, "%s:2:", path);
		ok(!strncmp(err, want, strlen(want)), "bad JSON is path:line:col: %s", err);
		snprintf(path, sizeof path, "%s/none.json", dir);
		j = jload(path, err, sizeof err);
		snprintf(want, sizeof want, "cannot read '%s': No such file or directory", path);
		ok(!j && !strcmp(err, want), "a missing file: %s", err);
		j = jload(dir, err, sizeof err);
		snprintf(want, sizeof want, "cannot read '%s': Is a directory", dir);
		ok(!j && !strcmp(err, want), "a folder: %s", err);
	}
}

/* ---- jdumps against jansson's json_dumps on random trees ---- */

static uint64_t rng = 88172645463325252ull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* bytes that exercise every way a string is written: plain, escapes,
 * control characters, DEL, multi-byte UTF-8 up to U+10FFFF, NUL */
static size_t
rndtext(char *s, size_t cap)
{
	static const char *const bits[] = { "a", "Z", "0", " ", "\"", "\\", "/", "\b", "\f", "\n", "\r", "\t",
	                                     "\x01", "\x1b", "\x1f", "\x7f", "\xc2\x80", "\xc3\xa9", "\xdf\xbf",
	                                     "\xe0\xa0\x80", "\xe2\x82\xac", "\xef\xbf\xbf", "\xee\x80\x80",
	                                     "\xf0\x90\x80\x80", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
	                                     "sk-", "{{x}}", "" };
	size_t n = 0, k = rnd() % 12;

	while (k--) {
		const char *b = bits[rnd() % (sizeof bits / sizeof bits[0])];
		size_t m = *b ? strlen(b) : 1; /* "": a NUL byte */
		if (n + m >= cap)
			break;
		memcpy(s + n, b, m);
		n += m;
	}
	return n;
}

static json_t *
rndvalue(int depth)
{
	static const double reals[] = { 0.0, -0.0, 0.1, 1.5, -2.0, 1e21, 1e-7, 123456789012345678.0, 3.141592653589793,
	                                1e300, 2.2250738585072014e-308, 5e-324, 1.7976931348623157e308, 100.0, 1e15,
	                                1e16, 0.30000000000000004 };
	char t[200];
	size_t n, i;
	json_t *v;

	switch (rnd() % (depth > 4 ? 6 : 8)) {
	case 0: return json_null();
	case 1: return json_boolean(rnd() & 1);
	case 2: return json_integer(rnd() % 3 ? (json_int_t)(rnd() % 2000) - 1000 : (json_int_t)rnd());
	case 3: {
		double d;
		if (rnd() % 2)
			return json_real(reals[rnd() % (sizeof reals / sizeof reals[0])]);
		do { /* any finite double, bit for bit */
			uint64_t u = rnd();
			memcpy(&d, &u, sizeof d);
		} while (!isfinite(d));
		return json_real(d);
	}
	case 4:
	case 5:
		n = rndtext(t, sizeof t);
		return json_stringn(t, n);
	case 6:
		v = json_array();
		for (i = rnd() % 5; i > 0; i--)
			json_array_append_new(v, rndvalue(depth + 1));
		return v;
	default:
		v = json_object();
		for (i = rnd() % 6; i > 0; i--) { /* keys that share prefixes, hold NULs, sort by bytes */
			n = rnd() % 3 ? rndtext(t, 24) : (size_t)snprintf(t, sizeof t, "%.*s", (int)(rnd() % 4), "abab");
			json_object_setn_new(v, t, n, rndvalue(depth + 1));
		}
		return v;
	}
}

static void
dumps(void)
{
	static const size_t flags[] = { JFLAGS_FILE, JFLAGS_LINE, JSON_COMPACT, JSON_COMPACT | JSON_SORT_KEYS,
	                                JSON_INDENT(1) | JSON_SORT_KEYS, 0, JSON_INDENT(4) | JSON_ENSURE_ASCII,
	                                JSON_ESCAPE_SLASH | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(5),
	                                JSON_ENCODE_ANY | JSON_COMPACT };
	int trees = 3000, same = 0, total = 0;
	char *a, *b;

	for (int i = 0; i < trees; i++) {
		json_t *j = i % 10 == 9 ? rndvalue(0) : json_pack("[o]", rndvalue(0));
		for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
			b = json_dumps(j, flags[f]);
			if (!b) /* a bare value without JSON_ENCODE_ANY: jansson refuses, and jdumps dies with it */
				continue;
			a = jdumps(j, flags[f]);
			total++;
			if (!strcmp(a, b))
				same++;
			else if (total - same <= 3)
				printf("# differs (flags %#zx):\n#   jdumps:     %s\n#   json_dumps: %s\n", flags[f], a, b);
			free(a);
			free(b);
		}
		json_decref(j);
	}
	ok(total > 20000 && same == total, "jdumps writes json_dumps's bytes: %d of %d random trees and flags", same,
	   total);
	{
		json_t *j = json_pack("{s:s}", "k", "x");
		json_t *inner = json_array();
		json_object_set(j, "loop", inner);
		json_array_append(inner, j); /* a loop: jansson refuses it, so jdumps dies (exit 1) */
		pid_t pid = fork();
		int st;
		if (pid == 0) {
			freopen("/dev/null", "w", stderr);
			free(jdumps(j, JFLAGS_LINE));
			_exit(0);
		}
		waitpid(pid, &st, 0);
		ok(WIFEXITED(st) && WEXITSTATUS(st) == 1, "a tree with a loop: jdumps dies as json_dumps fails");
		json_array_clear(inner);
		json_decref(inner);
		json_decref(j);
	}
}

/* programs on PATH (option values and file lists: t-opts) */
static void
programs(void)
{
	char *sh = findprog("sh"), *none = findprog("retort-no-such-program");
	ok(sh && sh[0] == '/' && !none, "findprog: %s", sh ? sh : "(none)");
	free(sh);
	sh = findprog("/bin/sh");
	ok(sh && !strcmp(sh, "/bin/sh") && !findprog("/nonexistent/sh"), "findprog with a path");
	free(sh);
}

/* runcapture: output and status, stdin, the clock, what cannot start */
static void
runcaptures(const char *dir)
{
	char *echo[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *cat[] = { "/bin/cat", NULL };
	char *killed[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
	char *quiet[] = { "/bin/sh", "-c", "exec >&- 2>&-; sleep 5", NULL };
	char *none[] = { "/nonexistent/prog", NULL };
	struct runlimits lim = { 1, 0, 0, NULL };
	struct run r;
	int rc;
	rc = runcapture(echo, dir, NULL, &lim, 1 << 10, &r);
	ok(rc == 0 && r.status == 3 && !r.timedout && !strcmp(r.log.s, "out\nerr\n"),
	   "runcapture: stdout and stderr captured, exit status (%d)", r.status);
	buffree(&r.log);
	ok(runcapture(cat, NULL, "fed through stdin", &lim, 1 << 10, &r) == 0 && r.status == 0 &&
	   !strcmp(r.log.s, "fed through stdin"), "runcapture: input on stdin");
	buffree(&r.log);
	ok(runcapture(killed, NULL, NULL, &lim, 1 << 10, &r) == 0 && r.status == 128 + 9, "runcapture: killed by a signal is 128 + it");
	buffree(&r.log);
	rc = runcapture(quiet, NULL, NULL, &lim, 1 << 10, &r);
	ok(rc == 0 && r.timedout && r.seconds < 3,
	   "runcapture: a child that closed its output is still timed out (%.1f s)", r.seconds);
	buffree(&r.log);
	errno = 0;
	ok(runcapture(none, NULL, NULL, &lim, 1 << 10, &r) < 0 && errno == ENOENT,
	   "runcapture: a program that does not exist cannot start (-1, ENOENT)");
	buffree(&r.log);
	errno = 0;
	ok(runcapture(echo, "/nonexistent/dir", NULL, &lim, 1 << 10, &r) < 0 && errno == ENOENT,
	   "runcapture: nor in a folder that does not exist");
	buffree(&r.log);
}

/* readrange, movefile, temporaries removed at exit */
static void
files(const char *dir)
{
	char *a = xasprintf("%s/range", dir), *b = xasprintf("%s/moved", dir), *t = xasprintf("%s/temp", dir);
	struct buf r;
	struct stat st1, st2;
	bufinit(&r, 1 << 10);
	writefile(a, "0123456789", 10);
	ok(readrange(a, 3, 4, &r) == 0 && r.n == 4 && !memcmp(r.s, "3456", 4), "readrange: 4 bytes from 3");
	bufreset(&r);
	errno = 0;
	ok(readrange(a, 8, 4, &r) < 0 && errno == EIO, "readrange: past the end is EIO");
	writefile(t, "same", 4);
	ok(movefile(t, b) == 1 && access(t, F_OK) < 0, "movefile: renamed into place");
	stat(b, &st1);
	writefile(t, "same", 4);
	ok(movefile(t, b) == 0 && access(t, F_OK) < 0 && stat(b, &st2) == 0 && st1.st_ino == st2.st_ino,
	   "movefile: the same bytes leave the old file alone (restat)");
	mkdir(t, 0755);
	tempadd(t);
	tempdone(t);
	ok(access(t, F_OK) < 0, "tempdone removes a temporary folder");
	buffree(&r);
	free(a);
	free(b);
	free(t);
}

static void *
sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* pid is a zombie (its state in /proc/PID/stat) */
static int
zombiep(pid_t pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] == 'Z';
}

/* temporaries of a killed process are swept by the next; others' are left alone */
static void
sweeps(const char *dir)
{
	/* temporaries of a killed process are swept by the next; a live
	 * one's, another host's and other names are left alone */
	char *sub = xasprintf("%s/sweep", dir), *x = xasprintf("%s/x", sub), *p[8], *d = NULL;
	char *sub2 = xasprintf("%s/sweep2", dir), *y = xasprintf("%s/y", sub2);
	char *mine = tempname(x, "tmp");
	const char *host = strchr(mine, '@') + 1; /* where it was made: this host and pid namespace */
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	p[0] = xasprintf("%s.tmp-%ld@%s", x, (long)dead, host);
	p[1] = xasprintf("%s.tmp-1@%s", x, host);
	p[2] = xasprintf("%s.tmp-%ld@%s.elsewhere", x, (long)dead, host);
	p[3] = xasprintf("%s.tmpx-%ld@%s", x, (long)dead, host);
	p[4] = xasprintf("%s/w.build-%ld@%s+abcdef", sub, (long)dead, host);
	p[5] = xasprintf("%s.tmp-+%ld@%s", x, (long)dead, host); /* not a name tempname makes */
	p[6] = xasprintf("%s/z.tmp-%ld@%s", sub, (long)dead, host);
	p[7] = xasprintf("%s.build-%ld@%s+abcdef", y, (long)dead, host);
	mkdir(sub, 0755);
	mkdir(sub2, 0755);
	mkdir(p[4], 0755);
	mkdir(p[7], 0755);
	for (int i = 0; i < 8; i++) { /* not by writefile: its first write in sub is the one tested */
		FILE *f = fopen(i == 4 || i == 7 ? (d = xasprintf("%s/inside", p[i])) : p[i], "w");
		need(f && fputs("t", f) >= 0 && fclose(f) == 0, "make a leftover");
		if (i == 4 || i == 7)
			free(d);
	}
	{ /* x already holds its bytes: the write changes nothing, the sweep is still done */
		FILE *f = fopen(x, "w");
		need(f && fputs("x", f) >= 0 && fclose(f) == 0, "make x");
	}
	ok(writefile(x, "x", 1) == 0 && access(p[0], F_OK) < 0,
	   "writefile sweeps a dead process's temporary, also when the bytes are unchanged");
	ok(access(p[6], F_OK) < 0, "and, at its first write in a folder, every file's there");
	ok(access(p[3], F_OK) < 0 && access(p[4], F_OK) < 0, "of every kind (a tool's build and work folders too)");
	ok(access(p[1], F_OK) == 0 && access(p[2], F_OK) == 0 && access(p[5], F_OK) == 0,
	   "a live process's, another place's and an odd name are left");
	d = tempdir(y, "build");
	ok(d && access(p[7], F_OK) < 0 && access(d, F_OK) == 0, "tempdir sweeps a dead process's folder and makes its own");
	is_int(strncmp(d, p[7], strlen(y) + 7), 0, "tempdir's folder is named for its kind");
	tempdone(d);
	ok(access(d, F_OK) < 0, "tempdone removes it");
	free(d);
	{ /* killed and not yet reaped: a zombie makes nothing more */
		char owner[320], *z;
		pid_t zombie = fork();
		if (zombie == 0)
			_exit(0);
		for (int i = 0; i < 2000 && !zombiep(zombie); i++)
			usleep(1000);
		z = xasprintf("%s.work-%ld@%s+abcdef", y, (long)zombie, host);
		need(mkdir(z, 0755) == 0, "make a zombie's leftover");
		d = tempdir(y, "work");
		ok(d && access(z, F_OK) < 0, "a zombie's folder is swept, as a dead process's");
		snprintf(owner, sizeof owner, "%ld@%s", (long)zombie, host);
		ok(ownergone(owner), "and a zombie owns nothing");
		waitpid(zombie, NULL, 0);
		zombie = fork(); /* its first thread ended, another one running */
		if (zombie == 0) {
			pthread_t th;
			if (pthread_create(&th, NULL, sleeper, NULL) == 0)
				pthread_exit(NULL);
			_exit(1);
		}
		for (int i = 0; i < 2000 && !zombiep(zombie); i++)
			usleep(1000);
		snprintf(owner, sizeof owner, "%ld@%s", (long)zombie, host);
		ok(zombiep(zombie) && !ownergone(owner), "one whose first thread ended, another running, is not gone");
		kill(zombie, SIGKILL);
		waitpid(zombie, NULL, 0);
		tempdone(d);
		free(d);
		free(z);
	}
	for (int i = 0; i < 8; i++)
		free(p[i]);
	free(mine);
	free(x);
	free(y);
	free(sub);
	free(sub2);
}

int
main(void)
{
	char dir[] = "/tmp/t-util.XXXXXX";

	setprogname("t-util");
	buffers();

	need(mkdtemp(dir) != NULL, "make a scratch folder");
	writes(dir);
	folders(dir);
	sha256s();
	jsonfiles(dir);
	dumps();
	programs();
	runcaptures(dir);
	files(dir);
	sweeps(dir);
	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "# cannot remove %s\n", dir);
	}
	return done_testing();
}

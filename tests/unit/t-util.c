/* t-util.c - the shared library: buffers, files, sha256, JSON */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../tools/lib/json.h"
#include "../../tools/lib/sandbox.h"
#include "../../tools/lib/sha.h"
#include "../../tools/lib/util.h"
#include "../tap.h"

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

/* temporaries of a killed process are swept by the next; others' are left alone */
static void
sweeps(const char *dir)
{
	/* temporaries of a killed process are swept by the next; a live
	 * one's, another host's and other names are left alone */
	char *sub = xasprintf("%s/sweep", dir), *x = xasprintf("%s/x", sub), *y = xasprintf("%s/y", sub), *p[7], *d;
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
	p[4] = xasprintf("%s.build-%ld@%s+abcdef", y, (long)dead, host);
	p[5] = xasprintf("%s.tmp-+%ld@%s", x, (long)dead, host); /* not a name tempname makes */
	p[6] = xasprintf("%s/z.tmp-%ld@%s", sub, (long)dead, host);
	mkdir(sub, 0755);
	mkdir(p[4], 0755);
	for (int i = 0; i < 7; i++) { /* not by writefile: its first write in sub is the one tested */
		FILE *f = fopen(i == 4 ? (d = xasprintf("%s/inside", p[4])) : p[i], "w");
		need(f && fputs("t", f) >= 0 && fclose(f) == 0, "make a leftover");
		if (i == 4)
			free(d);
	}
	ok(writefile(x, "x", 1) == 1 && access(p[0], F_OK) < 0, "writefile sweeps a dead process's temporary");
	ok(access(p[6], F_OK) < 0, "and, at its first write in a folder, every file's there");
	ok(access(p[1], F_OK) == 0 && access(p[2], F_OK) == 0 && access(p[3], F_OK) == 0 && access(p[5], F_OK) == 0,
	   "a live process's, another place's, another kind's and an odd name are left");
	d = tempdir(y, "build");
	ok(d && access(p[4], F_OK) < 0 && access(d, F_OK) == 0, "tempdir sweeps a dead process's folder and makes its own");
	is_int(strncmp(d, p[4], strlen(y) + 7), 0, "tempdir's folder is named for its kind");
	tempdone(d);
	ok(access(d, F_OK) < 0, "tempdone removes it");
	free(d);
	for (int i = 0; i < 7; i++)
		free(p[i]);
	free(mine);
	free(x);
	free(y);
	free(sub);
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

/* cgroup.c - see cgroup.h */
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/util.h"

#define CGPREFIX "retort-jail."
#define CGROUP2_MAGIC 0x63677270

static char base[PATH_MAX];  /* "" none */
static int basev2, hasmem;   /* the base is cgroup2; memory.max in its cgroups */
static char kind[1024];
static int probed;

/* the mount point of the hierarchy whose type is fstype (and whose super
 * options name opt, unless NULL), and its root, from mountinfo; 0 or -1 */
static int
mountof(const char *fstype, const char *opt, char *mnt, size_t mcap, char *root, size_t rcap)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	int rc = -1;

	while (f && rc < 0 && fgets(line, sizeof line, f)) {
		char r[PATH_MAX], m[PATH_MAX], t[64], super[1024], *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", t, super) != 2 || strcmp(t, fstype))
			continue;
		if (opt) {
			int found = 0;
			for (char *s = strtok(super, ","); s && !found; s = strtok(NULL, ","))
				found = !strcmp(s, opt);
			if (!found)
				continue;
		}
		snprintf(mnt, mcap, "%s", m);
		snprintf(root, rcap, "%s", r);
		rc = 0;
	}
	if (f)
		fclose(f);
	return rc;
}

/* this process's cgroup in the hierarchy of controller ctl ("" the
 * cgroup2 one), as a path below the mount of fstype; 0 or -1 */
static int
owncgroup(const char *ctl, const char *fstype, char *out, size_t cap)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[4096], mnt[PATH_MAX], root[PATH_MAX], path[PATH_MAX] = "";
	int found = 0;

	while (f && !found && fgets(line, sizeof line, f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = 0;
		line[strcspn(line, "\n")] = 0;
		b[1 + strcspn(b + 1, "\n")] = 0;
		if (!*ctl)
			found = !strcmp(line, "0") && !a[1];
		else
			for (char *s = strtok(a + 1, ","); s && !found; s = strtok(NULL, ","))
				found = !strcmp(s, ctl);
		if (found)
			snprintf(path, sizeof path, "%s", b + 1);
	}
	if (f)
		fclose(f);
	if (!found || mountof(fstype, *ctl ? ctl : NULL, mnt, sizeof mnt, root, sizeof root) < 0)
		return -1;
	/* a cgroup namespace's or a bind mount's root: the path is below it */
	if (strcmp(root, "/") && !strncmp(path, root, strlen(root)))
		memmove(path, path + strlen(root), strlen(path + strlen(root)) + 1);
	return (size_t)snprintf(out, cap, "%s%s", mnt, strcmp(path, "/") ? path : "") < cap ? 0 : -1;
}

/* value into dir/file; 0 or -1 */
static int
cgwrite(const char *dir, const char *file, const char *value)
{
	char p[PATH_MAX + 64];
	int fd, rc;

	snprintf(p, sizeof p, "%s/%s", dir, file);
	if ((fd = open(p, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	rc = write(fd, value, strlen(value)) == (ssize_t)strlen(value) ? 0 : -1;
	close(fd);
	return rc;
}

int
jailcgenter(const char *path)
{
	return cgwrite(path, "cgroup.procs", "0");
}

/* every process listed in dir's cgroup.procs killed; how many */
static int
killall(const char *dir)
{
	char p[PATH_MAX + 64], buf[8192];
	int fd, n = 0;
	ssize_t len;

	if (cgwrite(dir, "cgroup.kill", "1") == 0) /* cgroup2 since Linux 5.14: all at once */
		return 1;
	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while ((len = read(fd, buf, sizeof buf - 1)) > 0) {
		char *s = buf, *e;
		buf[len] = 0;
		for (long pid; (pid = strtol(s, &e, 10)) > 0 || e != s; s = e)
			if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
				n++;
	}
	close(fd);
	return n;
}

int
jailcgdone(const char *path)
{
	double end = now() + 2;

	if (!path || !*path)
		return 0;
	for (;;) {
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY || now() > end)
			return -1;
		killall(path);
		usleep(2000);
	}
}

/* the cgroups of base whose tools are gone: removed */
static void
cgsweep(void)
{
	DIR *d = opendir(base);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char owner[256], *p;
		if (strncmp(e->d_name, CGPREFIX, strlen(CGPREFIX)))
			continue;
		snprintf(owner, sizeof owner, "%s", e->d_name + strlen(CGPREFIX));
		if ((p = strchr(owner, '+')))
			*p = 0;
		if (ownergone(owner)) {
			p = xasprintf("%s/%s", base, e->d_name);
			jailcgdone(p);
			free(p);
		}
	}
	if (d)
		closedir(d);
}

/* 1 when dir takes jails' cgroups: one made there has pids.max and a
 * child of ours moves into it; why not into why */
static int
probe(const char *dir, char *why, size_t cap)
{
	char owner[320], p[PATH_MAX + 400], q[PATH_MAX + 420];
	struct statfs sf;
	pid_t pid;
	int st = -1, ok;

	if (dir[0] != '/' || strpbrk(dir, " \t\n") || strlen(dir) > PATH_MAX - 400) {
		snprintf(why, cap, "'%.300s' is not an absolute path without spaces", dir);
		return 0;
	}
	ownername(owner, sizeof owner);
	snprintf(p, sizeof p, "%s/%s%s+probe", dir, CGPREFIX, owner);
	jailcgdone(p);
	if (mkdir(p, 0755) < 0) {
		snprintf(why, cap, "cannot make a cgroup in '%.300s': %s", dir, strerror(errno));
		return 0;
	}
	snprintf(q, sizeof q, "%s/pids.max", p);
	if (access(q, W_OK) < 0) {
		snprintf(why, cap, "'%.300s' has no pids controller for its children", dir);
		jailcgdone(p);
		return 0;
	}
	if ((pid = fork()) == 0)
		_exit(jailcgenter(p) < 0);
	ok = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!ok)
		snprintf(why, cap, "cannot move a process into a cgroup of '%.300s'", dir);
	basev2 = statfs(dir, &sf) == 0 && sf.f_type == CGROUP2_MAGIC;
	snprintf(q, sizeof q, "%s/memory.max", p);
	hasmem = basev2 && access(q, W_OK) == 0;
	jailcgdone(p);
	return ok;
}

/* the hierarchy owncgroup(ctl, fstype) finds as the base, where probe
 * passes; else why not, in why[*n] (*n counts the reasons) */
static void
tryhierarchy(const char *ctl, const char *fstype, const char *none, char (*why)[512], int *n)
{
	char dir[PATH_MAX];

	if (owncgroup(ctl, fstype, dir, sizeof dir) < 0)
		snprintf(why[(*n)++], sizeof why[0], "%s", none);
	else if (probe(dir, why[*n], sizeof why[0]))
		snprintf(base, sizeof base, "%s", dir);
	else
		(*n)++;
}

const char *
jailcgbase(void)
{
	const char *env = getenv("RETORT_CGROUP");
	char why[3][512];
	int n = 0;

	if (probed)
		return base[0] ? base : NULL;
	probed = 1;
	if (env && !strcmp(env, "none")) {
		snprintf(kind, sizeof kind, "no pids cgroup (RETORT_CGROUP=none)");
		return NULL;
	}
	if (env && *env) {
		if (probe(env, why[0], sizeof why[0]))
			snprintf(base, sizeof base, "%s", env);
		else
			n = 1;
	}
	if (!base[0] && !n)
		tryhierarchy("", "cgroup2", "no cgroup2 hierarchy", why, &n);
	if (!base[0] && !(env && *env))
		tryhierarchy("pids", "cgroup", "no v1 pids hierarchy", why, &n);
	if (base[0])
		snprintf(kind, sizeof kind, "a cgroup per jail in %.600s (%s), pids.max %d%s", base,
		         basev2 ? "cgroup2" : "v1 pids", JAIL_PIDS,
		         hasmem ? ", memory.max its address-space limit" : "; memory: rlimits only (no cgroup2 memory there)");
	else
		snprintf(kind, sizeof kind, "no pids cgroup (%.480s%s%.480s): jails of one uid share its RLIMIT_NPROC", why[0],
		         n > 1 ? "; " : "", n > 1 ? why[1] : "");
	return base[0] ? base : NULL;
}

const char *
jailcgkind(void)
{
	jailcgbase();
	return kind;
}

int
jailcgmake(char *path, size_t cap, long memmb)
{
	static int seq, swept;
	char owner[320], v[32];
	int made = -1;

	path[0] = 0;
	if (!jailcgbase())
		return 1;
	if (!__atomic_exchange_n(&swept, 1, __ATOMIC_RELAXED))
		cgsweep();
	ownername(owner, sizeof owner);
	/* the next free number: a program this one execs (verify's bench) has
	 * its pid, and the cgroup of a harness handed to it */
	for (int tries = 0; made < 0 && tries < 1000; tries++) {
		int k = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
		if ((size_t)snprintf(path, cap, "%s/%s%s+%d", base, CGPREFIX, owner, k) >= cap) {
			path[0] = 0;
			errno = ENAMETOOLONG;
			return -1;
		}
		if ((made = mkdir(path, 0755)) < 0 && errno != EEXIST)
			break;
	}
	if (made < 0) {
		int e = errno;
		path[0] = 0;
		errno = e;
		return -1;
	}
	snprintf(v, sizeof v, "%d", JAIL_PIDS);
	if (cgwrite(path, "pids.max", v) < 0) {
		int e = errno;
		jailcgdone(path);
		path[0] = 0;
		errno = e;
		return -1;
	}
	snprintf(v, sizeof v, "%ld", memmb << 20);
	if (hasmem && memmb > 0 && cgwrite(path, "memory.max", v) < 0) {
		int e = errno;
		jailcgdone(path);
		path[0] = 0;
		errno = e;
		return -1;
	}
	return 0;
}

/* sandbox.c - see sandbox.h */
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/fdpass.h"
#include "cgroup.h"

/* as root, a jail's uid: one per tool process (its pid above a base, and
 * pids stay below 2^22), so that no jail's processes count against
 * another tool's RLIMIT_NPROC; trusted code (the spec's baseline) from a
 * base of its own, out of every candidate's reach */
enum { JAIL_UID = 1000000000, JAIL_TRUSTED_UID = 2000000000 };

static uid_t
jailuidof(int trusted, pid_t tool)
{
	return (uid_t)(trusted ? JAIL_TRUSTED_UID : JAIL_UID) + (uid_t)tool;
}

/* what the minimal root holds of the host, read-only */
static const char *const sysdirs[] = { "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", NULL };
static const char *const sysfiles[] = { "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                        "/etc/alternatives", NULL };
static const char *const devnodes[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", NULL };

int
hasgpu(void)
{
#ifdef RETORT_TESTING
	/* the test build's harness may run on tests/unit/fakedevice.c instead */
	if (getenv("RETORT_FAKE_GPU"))
		return 1;
#endif
	return access("/dev/nvidiactl", F_OK) == 0 || access("/dev/nvidia0", F_OK) == 0;
}

int
stepleased(void)
{
	const char *l = getenv("RETORT_GPU_LEASE");

	return l && !strcmp(l, "step");
}

/* the entries of CUDA_VISIBLE_DEVICES as this process found it, up to
 * max; -1 when it is not set */
static int
visibledevices(char dev[][64], int max)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	int n = 0;

	if (!v)
		return -1;
	while (*v && n < max) {
		size_t k = strcspn(v, ",");
		if (k > 0 && k < 64) {
			memcpy(dev[n], v, k);
			dev[n++][k] = 0;
		}
		v += k + (v[k] == ',');
	}
	return n;
}

int
gpuslots(int ngpus)
{
	char dev[64][64];
	int n = visibledevices(dev, 64);

	if (ngpus < 1 || stepleased())
		ngpus = 1;
	return n > 0 && n < ngpus ? n : ngpus;
}

void
gpudevice(int slot, char *out, size_t cap)
{
	char dev[64][64];
	int n = visibledevices(dev, 64);

	if (n < 0)
		snprintf(out, cap, "%d", slot);
	else
		snprintf(out, cap, "%s", slot < n ? dev[slot] : "");
}

/* slot's lock file DIR/gpu<slot>.<what> (lock: the lease; deck), open; -1 with errno */
static int
slotlock(const char *dir, int slot, const char *what)
{
	char *p = xasprintf("%s/gpu%d.%s", dir, slot, what);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	free(p);
	return fd;
}

int
gpulock(const char *dir, int ngpus, int *device)
{
	int i, fd;

	*device = 0;
	if (stepleased())
		return open("/dev/null", O_RDONLY | O_CLOEXEC);
	ngpus = gpuslots(ngpus);
	if (ngpus == 1) /* wait in the kernel's queue: no poll, no gap at the handoff */
		return gpulockslot(dir, 0);
	if (mkdirp(dir) < 0)
		return -1;
	for (;;) {
		for (i = 0; i < ngpus; i++) {
			if ((fd = slotlock(dir, i, "lock")) < 0)
				return -1;
			if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
				*device = i;
				return fd;
			}
			close(fd);
		}
		usleep(20000); /* every slot held (the gpu pool stages more edges than GPUs): poll */
	}
}

/* DIR/gpu<slot>.<what>, held: its fd, waiting for it */
static int
holdlock(const char *dir, int slot, const char *what)
{
	int fd;

	if (mkdirp(dir) < 0 || (fd = slotlock(dir, slot, what)) < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	return fd;
}

int
gpulockslot(const char *dir, int slot)
{
	if (stepleased())
		return open("/dev/null", O_RDONLY | O_CLOEXEC);
	return holdlock(dir, slot, "lock");
}

int
gpudeck(const char *dir, int slot)
{
	return holdlock(dir, slot, "deck");
}

/* processes of this uid, so that RLIMIT_NPROC leaves room for a few more */
static long
processes(uid_t uid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	long n = 0;

	if (!d)
		return 1000;
	while ((e = readdir(d))) {
		char p[300];
		struct stat st;
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof p, "/proc/%s", e->d_name);
		if (stat(p, &st) == 0 && st.st_uid == uid)
			n++;
	}
	closedir(d);
	return n;
}

/* -------------------------------------------- what this process started */

/*
 * The children this process started and has not reaped, so that
 * sweeporphans can tell them from what a jailed program left behind: a
 * process it forked into a session of its own (out of reach of the kill
 * of its group) that outlived it, and came to us (PR_SET_CHILD_SUBREAPER).
 * spawn forks with the list locked, so that no sweep sees a child before
 * it is on it.
 */
enum { MAXSTARTED = 64 };
static pid_t started[MAXSTARTED];
static pthread_mutex_t startedlock = PTHREAD_MUTEX_INITIALIZER;

/* the list's slot holding was (0: a free one) made to hold now, the lock held */
static void
relist(pid_t was, pid_t now)
{
	for (int k = 0; k < MAXSTARTED; k++)
		if (started[k] == was) {
			started[k] = now;
			return;
		}
}

static int
onlist(pid_t pid)
{
	for (int k = 0; k < MAXSTARTED; k++)
		if (started[k] == pid)
			return 1;
	return 0;
}

/* fork, the child on the list before any sweep can look (-1 with EAGAIN
 * when the list is full: a child off it would be swept as an orphan) */
static pid_t
spawn(void)
{
	pid_t pid = -1;

	pthread_mutex_lock(&startedlock);
	if (!onlist(0))
		errno = EAGAIN;
	else if ((pid = fork()) > 0)
		relist(0, pid);
	if (pid != 0) /* the child never unlocks: it execs or exits */
		pthread_mutex_unlock(&startedlock);
	return pid;
}

/* a child another process started (a harness handed over), ours now */
static void
adopted(pid_t pid)
{
	pthread_mutex_lock(&startedlock);
	relist(0, pid);
	pthread_mutex_unlock(&startedlock);
}

/* pid reaped: off the list */
static void
reaped(pid_t pid)
{
	pthread_mutex_lock(&startedlock);
	if (pid > 0)
		relist(pid, 0);
	pthread_mutex_unlock(&startedlock);
}

/* the pids in a /proc/self/task/T/children file (our thread T's
 * children) that are not on the list, appended to out; -1 when it cannot
 * be read */
static int
unlistedof(const char *path, pid_t *out, int *n, int max)
{
	char buf[8192], *p, *q;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (len < 0)
		return -1;
	buf[len] = 0;
	for (p = buf; *n < max; p = q) {
		long pid = strtol(p, &q, 10);
		if (q == p)
			break;
		if (pid > 0 && !onlist((pid_t)pid))
			out[(*n)++] = (pid_t)pid;
	}
	return 0;
}

/* our children not on the list (orphans that came to us), at most max;
 * -1 when the kernel does not list children (CONFIG_PROC_CHILDREN) */
static int
unlisted(pid_t *out, int max)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0, rc = 0;

	if (!d)
		return -1;
	while (rc == 0 && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			char path[300];
			snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
			rc = unlistedof(path, out, &n, max);
		}
	closedir(d);
	return rc < 0 ? -1 : n;
}

/*
 * What the jails' programs left behind that came to us (a subreaper):
 * our children not on the list, each round's killed at once and then
 * reaped, and theirs after them as each dies, for at most 2 s; the number
 * ended. Without a PID namespace nothing stronger holds: a chain of
 * processes that each fork and exit at once could stay ahead of it, which
 * is why the oracle has a uid of its own too.
 */
static int
sweeporphans(void)
{
	pid_t found[256];
	double end = now() + 2;
	int ended = 0, n;

	do {
		pthread_mutex_lock(&startedlock);
		n = unlisted(found, 256);
		for (int k = 0; k < n; k++)
			kill(found[k], SIGKILL);
		pthread_mutex_unlock(&startedlock);
		for (int k = 0; k < n; k++)
			waitpid(found[k], NULL, 0);
		ended += n > 0 ? n : 0;
	} while (n > 0 && now() < end);
	return ended;
}

static void
sweepatexit(void)
{
	sweeporphans();
}

static void
sweepregister(void)
{
	atexit(sweepatexit);
}

/* a jail without a PID namespace about to start: this process the
 * subreaper of what it leaves, swept at this process's exit too */
static void
sweeping(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pthread_once(&once, sweepregister);
}

/* ------------------------------------------------------------ the jail */

/*
 * Which namespaces a root child can have here, probed once per process in
 * a throwaway child: 2 network, mount, IPC, UTS and PID (with its own
 * /proc, which some containers refuse); 1 the first four; 0 none.
 */
static int
nslevel(void)
{
	static int level = -1;
	pid_t p;
	int st;

	if (level >= 0)
		return level;
	level = 0;
	if ((p = spawn()) == 0) {
		pid_t q;
		if (unshare(CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS) < 0)
			_exit(10);
		if (unshare(CLONE_NEWPID) < 0 || (q = fork()) < 0)
			_exit(11);
		if (q == 0)
			_exit(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
			      mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ? 11 : 12);
		_exit(waitpid(q, &st, 0) == q && WIFEXITED(st) ? WEXITSTATUS(st) : 11);
	}
	if (p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st))
		level = WEXITSTATUS(st) == 12 ? 2 : WEXITSTATUS(st) == 11 ? 1 : 0;
	reaped(p);
#ifdef RETORT_TESTING
	/* the test build: RETORT_NSLEVEL=N, a host that allows no more */
	if (getenv("RETORT_NSLEVEL") && atoi(getenv("RETORT_NSLEVEL")) < level)
		level = atoi(getenv("RETORT_NSLEVEL"));
#endif
	return level;
}

/* 1 when bubblewrap at path lists opt in its --help (older ones lack --size) */
static int
bwraphas(const char *path, const char *opt)
{
	char out[16384];
	size_t n = 0;
	ssize_t k;
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return 0;
	if ((pid = spawn()) == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		dup2(devnull, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execl(path, path, "--help", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && n < sizeof out - 1) {
		if ((k = read(p[0], out + n, sizeof out - 1 - n)) > 0)
			n += (size_t)k;
		else if (k == 0 || errno != EINTR)
			break;
	}
	out[n] = 0;
	close(p[0]);
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		reaped(pid);
	}
	return strstr(out, opt) != NULL;
}

/* bubblewrap, for a user who is not root (root builds the same view
 * itself); *sized: whether it sizes a tmpfs (--size) */
static char *
bwrapfind(int *sized)
{
	static char *path;
	static int looked, size;

	if (!looked) {
		path = getuid() != 0 ? findprog("bwrap") : NULL;
		size = path && bwraphas(path, "--size");
		looked = 1;
	}
	if (sized)
		*sized = size;
	return path;
}

static char *
bwrappath(void)
{
	return bwrapfind(NULL);
}

const char *
jailkind(void)
{
	static char kind[1536];
	size_t n;

	if (kind[0])
		return kind;
	if (bwrappath())
		snprintf(kind, sizeof kind, "bubblewrap (user, net, mount, pid namespaces; minimal root), rlimits");
	else if (getuid() == 0 && nslevel() == 2)
		snprintf(kind, sizeof kind, "unshare (net, mount, pid namespaces; minimal root by pivot_root), a uid "
		         "per tool from %d (trusted code from %d), rlimits; no bubblewrap", JAIL_UID, JAIL_TRUSTED_UID);
	else if (getuid() == 0 && nslevel() == 1)
		snprintf(kind, sizeof kind, "unshare (net, mount namespaces; minimal root by pivot_root, the host's "
		         "/proc), a uid per tool from %d (trusted code from %d), orphans swept, rlimits; no bubblewrap",
		         JAIL_UID, JAIL_TRUSTED_UID);
	else if (getuid() == 0)
		snprintf(kind, sizeof kind, "a uid per tool from %d (trusted code from %d), rlimits; no bubblewrap, no "
		         "namespaces", JAIL_UID, JAIL_TRUSTED_UID);
	else
		snprintf(kind, sizeof kind, "rlimits only (no bubblewrap, not root)");
	n = strlen(kind);
	snprintf(kind + n, sizeof kind - n, "; pids: %s", jailcgkind());
	return kind;
}

int
jailroot(void)
{
	return bwrappath() || (getuid() == 0 && nslevel() > 0);
}

/* 1 when a jail is a PID namespace, which ends all in it with its first process */
static int
pidns(void)
{
	return bwrappath() || (getuid() == 0 && nslevel() == 2);
}

const char *
jailweak(void)
{
	return jailroot() ? NULL : "no sandbox here that hides the host's files (out/, the cache dir's secret, home) "
	                           "from untrusted code: install bubblewrap, or run as root on a host that allows mount "
	                           "namespaces";
}

char *
jailpath(const struct jail *j, const char *name)
{
	return jailroot() ? xasprintf("/work/%s", name) : xasprintf("%s/%s", j->work, name);
}

/* 1 when path lies in one of the folders the minimal root binds anyway */
static int
insysdirs(const char *path)
{
	for (const char *const *d = sysdirs; *d; d++) {
		size_t n = strlen(*d);
		if (!strncmp(path, *d, n) && (path[n] == '/' || !path[n]))
			return 1;
	}
	return 0;
}

static void
addro(struct jail *j, const char *path)
{
	char real[PATH_MAX];
	size_t k;

	if (!path || path[0] != '/' || !realpath(path, real) || insysdirs(real) || !strcmp(real, "/"))
		return;
	for (k = 0; k < sizeof j->ro / sizeof j->ro[0] - 1 && j->ro[k]; k++)
		if (!strcmp(j->ro[k], real))
			return;
	if (k < sizeof j->ro / sizeof j->ro[0] - 1)
		j->ro[k] = xstrdup(real);
}

void
jailfreepaths(struct jail *j)
{
	for (size_t k = 0; k < sizeof j->ro / sizeof j->ro[0]; k++) {
		free((char *)j->ro[k]);
		j->ro[k] = NULL;
	}
}

void
jailaddpaths(struct jail *j, const char *const *progs)
{
	const char *ld = getenv("LD_LIBRARY_PATH");

	if (ld) {
		char *copy = xstrdup(ld), *t, *save = NULL;
		for (t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save))
			addro(j, t);
		free(copy);
	}
	for (; progs && *progs; progs++) {
		/* a program's folder; a toolkit's root when that is its bin */
		char real[PATH_MAX], *s;
		if (!realpath(*progs, real) || !(s = strrchr(real, '/')))
			continue;
		*s = 0;
		if ((s = strrchr(real, '/')) && s != real && !strcmp(s, "/bin"))
			*s = 0;
		addro(j, real);
	}
}

int
jailvenv(struct jail *j, const char *venv)
{
	char *py = xasprintf("%s/bin/python", venv);
	const char *progs[] = { py, NULL };
	int rc = -1;

	if (access(py, X_OK) == 0 && (j->venv = realpath(venv, NULL))) {
		jailaddpaths(j, progs);
		rc = 0;
	}
	free(py);
	return rc;
}

/* mkdir -p of path's folders below root (root itself exists); no malloc:
 * it runs in the forked child */
static void
mkparents(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s", path);
	for (char *s = p + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
}

/* make a bind mount read-only (all of it, where mount_setattr exists) */
static int
makero(const char *dst)
{
#ifdef SYS_mount_setattr
	struct { uint64_t set, clr, prop, userns; } ro = { 0x1 /* MOUNT_ATTR_RDONLY */, 0, 0, 0 };
	if (syscall(SYS_mount_setattr, AT_FDCWD, dst, 0x8000 /* AT_RECURSIVE */, &ro, sizeof ro) == 0)
		return 0;
#endif
	{
		/* a remount must keep the flags the host's mount has locked */
		struct statvfs sv;
		unsigned long fl = MS_REMOUNT | MS_BIND | MS_RDONLY;
		if (statvfs(dst, &sv) == 0)
			fl |= (sv.f_flag & ST_NOSUID ? MS_NOSUID : 0) | (sv.f_flag & ST_NODEV ? MS_NODEV : 0) |
			      (sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0) | (sv.f_flag & ST_RELATIME ? MS_RELATIME : 0);
		return mount(NULL, dst, NULL, fl, NULL);
	}
}

/* the host's path at the same path below root: a symlink as a symlink,
 * a folder or file as a bind mount; absent is fine */
static int
bindat(const char *root, const char *path, const char *at, int ro)
{
	char dst[PATH_MAX];
	struct stat st;

	if (lstat(path, &st) < 0)
		return 0;
	snprintf(dst, sizeof dst, "%s%s", root, at);
	mkparents(dst);
	if (S_ISLNK(st.st_mode)) {
		char t[PATH_MAX];
		ssize_t n = readlink(path, t, sizeof t - 1);
		if (n <= 0)
			return -1;
		t[n] = 0;
		return symlink(t, dst) < 0 && errno != EEXIST ? -1 : 0;
	}
	if (S_ISDIR(st.st_mode)) {
		if (mkdir(dst, 0755) < 0 && errno != EEXIST)
			return -1;
	} else {
		int fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		close(fd);
	}
	if (mount(path, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -1;
	return ro ? makero(dst) : 0;
}

static int
bindinto(const char *root, const char *path, int ro)
{
	return bindat(root, path, path, ro);
}

/* root/sub made (mode), and with fstype a fresh one of it mounted there */
static int
makemount(const char *root, const char *sub, mode_t mode, const char *fstype, unsigned long flags, const char *opts)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof p, "%s%s", root, sub);
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return -1;
	return fstype ? mount(fstype, p, fstype, flags, opts) : 0;
}

/*
 * With j->diskmb: root's /work and /tmp on one tmpfs of that size (made at
 * root/.rw, which is gone after), /work the jailed uid's; the work
 * folder's regular files bound into it, read-only but those of j->keep.
 */
static int
budgetmounts(const struct jail *j, const char *root)
{
	char rw[PATH_MAX + 32], src[PATH_MAX + 300], dst[PATH_MAX + 300], opts[64];
	DIR *d;
	struct dirent *e;
	int bad = 0;

	snprintf(opts, sizeof opts, "mode=0755,size=%ldm", j->diskmb);
	snprintf(rw, sizeof rw, "%s/.rw", root);
	if (makemount(root, "/.rw", 0700, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		return -1;
	snprintf(src, sizeof src, "%s/work", rw);
	bad |= mkdir(src, 0755) < 0 || chown(src, j->uid, j->uid) < 0;
	snprintf(dst, sizeof dst, "%s/work", root);
	bad |= makemount(root, "/work", 0755, NULL, 0, NULL) < 0 || mount(src, dst, NULL, MS_BIND, NULL) < 0;
	snprintf(src, sizeof src, "%s/tmp", rw);
	bad |= mkdir(src, 0700) < 0 || chmod(src, 01777) < 0;
	snprintf(dst, sizeof dst, "%s/tmp", root);
	bad |= makemount(root, "/tmp", 01777, NULL, 0, NULL) < 0 || mount(src, dst, NULL, MS_BIND, NULL) < 0;
	if (bad || !(d = opendir(j->work)))
		return -1;
	while (!bad && (e = readdir(d))) {
		struct stat st, at;
		int fd, kept = 0;
		snprintf(src, sizeof src, "%s/%s", j->work, e->d_name);
		if (lstat(src, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		for (size_t k = 0; k < sizeof j->keep / sizeof j->keep[0] && j->keep[k]; k++)
			kept |= !strcmp(j->keep[k], e->d_name);
		snprintf(dst, sizeof dst, "%s/work/%s", root, e->d_name);
		if ((fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
			bad = 1;
			break;
		}
		close(fd);
		/* the file lstat saw, not what a link put there since */
		bad |= mount(src, dst, NULL, MS_BIND, NULL) < 0 || stat(dst, &at) < 0 || at.st_ino != st.st_ino ||
		       at.st_dev != st.st_dev || (!kept && makero(dst) < 0);
	}
	closedir(d);
	return bad || umount2(rw, MNT_DETACH) < 0 || rmdir(rw) < 0 ? -1 : 0;
}

/*
 * The minimal root, built in this process's own mount namespace (we are
 * root, and the namespace's init when freshproc): a tmpfs at
 * WORK/.jail filled as sandbox.h says, then pivot_root into it. The old
 * root is unmounted: nothing of it stays reachable.
 */
static int
minimalroot(const struct jail *j, int freshproc)
{
	char root[PATH_MAX], p[PATH_MAX + 32];
	DIR *d;
	struct dirent *e;
	int bad = 0;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	snprintf(root, sizeof root, "%s/.jail", j->work);
	if (makemount(root, "", 0755, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m") < 0)
		return -1;
	/* /tmp first: a read-only path below it goes on top */
	if (j->diskmb > 0) {
		bad |= budgetmounts(j, root); /* and /work */
	} else {
		char opts[64];
		/* past workmb the tool stops it, before it meets this */
		snprintf(opts, sizeof opts, "mode=1777,size=%ldm", j->workmb > 0 ? 2 * j->workmb : 512);
		bad |= makemount(root, "/tmp", 01777, "tmpfs", MS_NOSUID | MS_NODEV, opts);
	}
	for (const char *const *s = sysdirs; *s; s++)
		bad |= bindinto(root, *s, 1);
	for (const char *const *s = sysfiles; *s; s++)
		bad |= bindinto(root, *s, 1);
	for (size_t k = 0; k < sizeof j->ro / sizeof j->ro[0] && j->ro[k]; k++)
		bad |= bindinto(root, j->ro[k], 1);
	if (j->venv)
		bad |= bindat(root, j->venv, JAILVENV, 1);
	if (j->pycache)
		bad |= bindat(root, j->pycache, JAILPYC, 1);
	bad |= makemount(root, "/dev", 0755, "tmpfs", MS_NOSUID, "mode=0755,size=1m");
	for (const char *const *s = devnodes; *s; s++)
		bad |= bindinto(root, *s, 0);
	if (j->gpu && (d = opendir("/dev"))) {
		while ((e = readdir(d))) {
			char node[300];
			if (strncmp(e->d_name, "nvidia", 6))
				continue;
			snprintf(node, sizeof node, "/dev/%s", e->d_name);
			bad |= bindinto(root, node, 0);
		}
		closedir(d);
	}
	bad |= makemount(root, "/dev/shm", 01777, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m");
	if (freshproc)
		bad |= makemount(root, "/proc", 0555, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	else
		bad |= bindinto(root, "/proc", 0);
	snprintf(p, sizeof p, "%s/work", root);
	if (j->diskmb <= 0)
		bad |= makemount(root, "/work", 0755, NULL, 0, NULL) < 0 || mount(j->work, p, NULL, MS_BIND, NULL) < 0;
	if (bad || makemount(root, "/.old", 0700, NULL, 0, NULL) < 0)
		return -1;
	snprintf(p, sizeof p, "%s/.old", root);
	if (syscall(SYS_pivot_root, root, p) < 0 || chdir("/") < 0 || umount2("/.old", MNT_DETACH) < 0 ||
	    rmdir("/.old") < 0)
		return -1;
	/* the root's own tmpfs: nothing more to be made in it */
	mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
	return chdir("/work");
}

/*
 * After unshare(CLONE_NEWPID) the next child is the namespace's init:
 * fork it to run the program while this process waits and exits as it
 * did. When that init dies, the kernel kills everything else in the
 * namespace — whatever the program forked, even into a new session —
 * before the exit is reported, so the parent's waitpid means all is gone.
 * If this process is killed first, PDEATHSIG takes the init with it.
 */
static void
nsinit(void)
{
	struct rlimit core = { 0, 0 };
	pid_t inner = fork();
	int st;

	if (inner < 0)
		_exit(126);
	if (inner == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1) /* the waiter is already gone */
			_exit(126);
		return;
	}
	for (int fd = 0; fd < 1024; fd++) /* the pipes' ends are the init's alone */
		close(fd);
	while (waitpid(inner, &st, 0) < 0)
		if (errno != EINTR)
			_exit(126);
	if (WIFSIGNALED(st)) { /* die the same way, without a core file */
		setrlimit(RLIMIT_CORE, &core);
		signal(WTERMSIG(st), SIG_DFL);
		kill(getpid(), WTERMSIG(st));
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 126);
}

static void
limits(const struct jail *j, uid_t uid)
{
	struct rlimit core = { 0, 0 }, nofile = { 256, 256 };
	struct rlimit cpu = { (rlim_t)j->seconds, (rlim_t)j->seconds + 5 };
	struct rlimit fsize = { (rlim_t)(j->filemb ? j->filemb : 64) << 20, (rlim_t)(j->filemb ? j->filemb : 64) << 20 };
	struct rlimit as = { (rlim_t)j->memmb << 20, (rlim_t)j->memmb << 20 };
	struct rlimit nproc;

	setrlimit(RLIMIT_CORE, &core);
	setrlimit(RLIMIT_FSIZE, &fsize);
	setrlimit(RLIMIT_NOFILE, &nofile);
	setrlimit(RLIMIT_CPU, &cpu);
	if (!j->cgroup) { /* a uid's count, shared by its jails: a cgroup's pids.max counts this jail's alone */
		nproc.rlim_cur = nproc.rlim_max = (rlim_t)(processes(uid) + 256);
		setrlimit(RLIMIT_NPROC, &nproc);
	}
	if (j->memmb > 0)
		setrlimit(RLIMIT_AS, &as);
}

/* the environment a jailed program sees: nothing of ours */
static char **
jailenv(const struct jail *j, const char *home)
{
	static char *env[12];
	const char *ld = getenv("LD_LIBRARY_PATH");
	int n = 0;

	env[n++] = "PATH=/usr/local/bin:/usr/bin:/bin";
	env[n++] = xasprintf("HOME=%s", home);
	env[n++] = "LC_ALL=C";
	env[n++] = "TMPDIR=/tmp";
	/* a user name for programs that ask (Python's getpass, torch's cache
	 * folders): the jail's uid has no passwd entry to look up */
	env[n++] = "USER=jail";
	env[n++] = "LOGNAME=jail";
	if (ld && *ld)
		env[n++] = xasprintf("LD_LIBRARY_PATH=%s", ld);
	if (j->gpu && j->gpudevice) {
		/* the leased GPU alone, numbered as nvidia-smi numbers them */
		env[n++] = xasprintf("CUDA_VISIBLE_DEVICES=%s", j->gpudevice);
		env[n++] = "CUDA_DEVICE_ORDER=PCI_BUS_ID";
	}
	env[n] = NULL;
	return env;
}

static int
dropuid(uid_t uid)
{
	return setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0 ? -1 : 0;
}

/* with j->diskmb, bubblewrap's arguments for budgetmounts's /work, from
 * a[n] on, at most up to a[max - 1]; the new n */
static int
bwrapwork(const struct jail *j, char **a, int n, int max)
{
	DIR *d = opendir(j->work);
	struct dirent *e;

	a[n++] = "--size"; a[n++] = xasprintf("%ld", j->diskmb << 20);
	a[n++] = "--tmpfs"; a[n++] = "/work";
	while (d && (e = readdir(d)) && n + 3 <= max) {
		char *src = xasprintf("%s/%s", j->work, e->d_name);
		struct stat st;
		int kept = 0;
		if (lstat(src, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(src);
			continue;
		}
		for (size_t k = 0; k < sizeof j->keep / sizeof j->keep[0] && j->keep[k]; k++)
			kept |= !strcmp(j->keep[k], e->d_name);
		a[n++] = kept ? "--bind" : "--ro-bind"; a[n++] = src; a[n++] = xasprintf("/work/%s", e->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

/* bubblewrap's command line for the same view, then argv */
static char **
bwrapargv(const struct jail *j, char *const argv[])
{
	static char *a[160];
	int n = 0, sized;
	struct stat st;

	a[n++] = bwrapfind(&sized);
	a[n++] = "--unshare-all";
	a[n++] = "--unshare-user";
	a[n++] = "--die-with-parent";
	a[n++] = "--new-session";
	a[n++] = "--cap-drop"; a[n++] = "ALL";
	if (sized) { /* as the root jail's: the budget, the work area, or 512 MiB */
		a[n++] = "--size"; a[n++] = xasprintf("%ld", (j->diskmb > 0 ? j->diskmb : j->workmb > 0 ? 2 * j->workmb : 512) << 20);
	}
	a[n++] = "--tmpfs"; a[n++] = "/tmp";
	for (const char *const *d = sysdirs; *d; d++) {
		if (lstat(*d, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t k = readlink(*d, target, sizeof target - 1);
			if (k <= 0)
				continue;
			target[k] = 0;
			a[n++] = "--symlink"; a[n++] = xstrdup(target); a[n++] = (char *)*d;
		} else {
			a[n++] = "--ro-bind"; a[n++] = (char *)*d; a[n++] = (char *)*d;
		}
	}
	for (const char *const *f = sysfiles; *f; f++) {
		a[n++] = "--ro-bind-try"; a[n++] = (char *)*f; a[n++] = (char *)*f;
	}
	for (size_t k = 0; k < sizeof j->ro / sizeof j->ro[0] && j->ro[k]; k++) {
		a[n++] = "--ro-bind-try"; a[n++] = (char *)j->ro[k]; a[n++] = (char *)j->ro[k];
	}
	if (j->venv) {
		a[n++] = "--ro-bind"; a[n++] = (char *)j->venv; a[n++] = JAILVENV;
	}
	if (j->pycache) {
		a[n++] = "--ro-bind"; a[n++] = (char *)j->pycache; a[n++] = JAILPYC;
	}
	a[n++] = "--dev"; a[n++] = "/dev";
	if (j->gpu) {
		DIR *d = opendir("/dev");
		struct dirent *e;
		while (d && (e = readdir(d)) && n < 120) {
			if (strncmp(e->d_name, "nvidia", 6))
				continue;
			char *node = xasprintf("/dev/%s", e->d_name);
			a[n++] = "--dev-bind"; a[n++] = node; a[n++] = node;
		}
		if (d)
			closedir(d);
	}
	a[n++] = "--proc"; a[n++] = "/proc";
	if (sized && j->diskmb > 0) /* a tmpfs of its own (/tmp another), the work folder's files bound in */
		n = bwrapwork(j, a, n, 150);
	else {
		a[n++] = "--bind"; a[n++] = (char *)j->work; a[n++] = "/work";
	}
	a[n++] = "--chdir"; a[n++] = "/work";
	a[n++] = "--";
	for (int k = 0; argv[k] && n < 158; k++)
		a[n++] = argv[k];
	a[n] = NULL;
	return a;
}

/*
 * In a forked child with its descriptors in place: become the jail and
 * run argv there. Returns only on failure (-1, errno set). argv[0] is a
 * path as the jail sees it (the work folder is /work there, except with
 * rlimits alone, where it is j->work itself).
 */
static int
jailexec(const struct jail *j, char *const argv[])
{
	int ns = getuid() == 0 && !bwrappath() ? nslevel() : 0;

	char **env;

	/* its cgroup first: all it starts, bubblewrap and namespaces included, in it */
	if (j->cgroup && jailcgenter(j->cgroup) < 0)
		return -1;
	/* everything that allocates before the limits: an address-space limit
	 * leaves no room for a sanitizer's allocator */
	if (bwrappath()) {
		char **bargv = bwrapargv(j, argv);
		env = jailenv(j, "/work");
		limits(j, getuid());
		execve(bwrappath(), bargv, env);
		return -1;
	}
	if (ns > 0) {
		if (unshare(CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | (ns == 2 ? CLONE_NEWPID : 0)) < 0)
			return -1;
		if (ns == 2)
			nsinit();
		if (minimalroot(j, ns == 2) < 0)
			return -1;
		if ((j->diskmb > 0 || j->workmb > 0) && j->reportfd > 2) { /* its tmpfs, for runcapture to see how full it got */
			int fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0 || fdsend(j->reportfd, fd) < 0)
				return -1;
			close(fd);
		}
	} else if (chdir(j->work) < 0) {
		return -1;
	}
	if (getuid() == 0) {
		pid_t parent = getppid();
		if (dropuid(j->uid) < 0)
			return -1;
		/* the change of uid cleared the parent-death signal (nsinit's, or
		 * runcapture's): set it again, and end here if the parent died in
		 * between (in a PID namespace of its own getppid() is 0 throughout) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);
	}
	env = jailenv(j, ns > 0 ? "/work" : j->work);
	limits(j, getuid());
	execve(argv[0], argv, env);
	return -1;
}

/* ------------------------------------------------- running with a limit */

/* runcapture's child: its stdio on the pipes, its limits, then argv (its errno into ex when that fails) */
NORETURN static void
runchild(char *const argv[], const char *dir, const char *input, const struct runlimits *lim,
         const int in[2], const int out[2], const int ex[2])
{
	int devnull = open("/dev/null", O_RDONLY), e;

	setpgid(0, 0);                    /* a timeout kills the whole tree */
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* and so does our death */
	dup2(input ? in[0] : devnull, 0);
	dup2(out[1], 1);
	dup2(out[1], 2);
	for (int fd = 3; fd < 1024; fd++)
		if (fd != ex[1] && (!lim->jail || fd != lim->jail->reportfd))
			close(fd);
	if (lim->jail) {
		struct jail j = *lim->jail;
		j.seconds = lim->seconds * 2;
		j.memmb = lim->memmb;
		j.filemb = lim->filemb;
		jailexec(&j, argv);
	} else {
		struct rlimit cpu = { (rlim_t)lim->seconds * 2, (rlim_t)lim->seconds * 2 };
		struct rlimit as = { (rlim_t)lim->memmb << 20, (rlim_t)lim->memmb << 20 };
		struct rlimit fsz = { (rlim_t)lim->filemb << 20, (rlim_t)lim->filemb << 20 };
		char *env[] = { NULL, "LC_ALL=C", NULL, NULL };
		const char *path = getenv("PATH");
		env[0] = xasprintf("PATH=%s", path ? path : "/usr/bin:/bin"); /* allocations before the limits */
		env[2] = xasprintf("HOME=%s", dir ? dir : "/nonexistent");
		setrlimit(RLIMIT_CPU, &cpu);
		if (lim->memmb > 0)
			setrlimit(RLIMIT_AS, &as);
		if (lim->filemb > 0)
			setrlimit(RLIMIT_FSIZE, &fsz);
		if (!dir || chdir(dir) == 0)
			execve(argv[0], argv, env);
	}
	e = errno;
	if (write(ex[1], &e, sizeof e) != (ssize_t)sizeof e)
		_exit(126);
	_exit(127);
}

/* feed the child its input as it takes it, so that neither side blocks; *fd closed (-1) once all is sent */
static void
feedinput(const char *input, size_t len, size_t *off, int *fd)
{
	while (input && *off < len) {
		ssize_t w = write(*fd, input + *off, len - *off);
		if (w <= 0) {
			if (w < 0 && errno == EAGAIN)
				break;
			*off = len; /* it stopped reading: the rest is not wanted */
		} else {
			*off += (size_t)w;
		}
	}
	if (input && *off == len && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* the bytes of the regular files below dir (their blocks, not followed
 * through links or into other file systems) */
static double dubytes;

static int
duone(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path;
	(void)f;
	if (flag == FTW_F && S_ISREG(st->st_mode))
		dubytes += (double)st->st_blocks * 512;
	return 0;
}

static double
du(const char *dir)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	double n;

	pthread_mutex_lock(&lock);
	dubytes = 0;
	nftw(dir, duone, 16, FTW_PHYS | FTW_MOUNT);
	n = dubytes;
	pthread_mutex_unlock(&lock);
	return n;
}

/* what runwait watches of a jail with a work area: its work folder's
 * bytes at the start, and its /tmp (a descriptor the jail sends over rep) */
struct watch {
	double before;
	int rep, tmpfd, asked;
};

/* a jail with a work area (workmb, no diskmb) whose work folder's growth
 * and /tmp's use together reached workmb MiB */
static int
outgrew(const struct jail *j, struct watch *w)
{
	struct pollfd pf = { w->rep, POLLIN, 0 };
	struct statvfs sv;
	double used = 0;

	if (!j || j->diskmb > 0 || j->workmb <= 0)
		return 0;
	if (w->tmpfd < 0 && !w->asked && w->rep >= 0 && poll(&pf, 1, 0) > 0) {
		w->tmpfd = fdrecv(w->rep);
		w->asked = 1;
	}
	if (w->tmpfd >= 0 && fstatvfs(w->tmpfd, &sv) == 0)
		used = ((double)sv.f_blocks - (double)sv.f_bfree) * (double)sv.f_frsize;
	return du(j->work) - w->before + used >= (double)j->workmb * (1 << 20);
}

/* wait for the child, its output (fd) into r->log and its input fed,
 * killed past lim->seconds, or (r->diskfull) once its work folder grew
 * past its work area (looked at every 20 ms) */
static void
runwait(pid_t pid, int fd, const char *input, int *infd, const struct runlimits *lim, double t0, struct watch *w,
        struct run *r)
{
	size_t off = 0, len = input ? strlen(input) : 0;
	char chunk[8192];
	int eof = 0;
	double looked = t0;

	for (;;) {
		int st;
		feedinput(input, len, &off, infd);
		while (!eof) {
			ssize_t k = read(fd, chunk, sizeof chunk);
			if (k > 0)
				bufput(&r->log, chunk, (size_t)k); /* past the cap: dropped */
			else if (k == 0 || (errno != EAGAIN && errno != EINTR))
				eof = 1; /* all writers gone: its exit is still timed */
			else
				break;
		}
		if (waitpid(pid, &st, WNOHANG) == pid) {
			ssize_t k;
			while (!eof && (k = read(fd, chunk, sizeof chunk)) > 0)
				bufput(&r->log, chunk, (size_t)k);
			r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
		if (now() - t0 > lim->seconds) {
			kill(-pid, SIGKILL);
			waitpid(pid, &st, 0);
			r->timedout = 1;
			r->status = 128 + SIGKILL;
			break;
		}
		if (now() - looked > 0.02) {
			looked = now();
			if (outgrew(lim->jail, w)) {
				kill(-pid, SIGKILL);
				waitpid(pid, &st, 0);
				r->diskfull = 1;
				r->status = 128 + SIGKILL;
				break;
			}
		}
		usleep(2000);
	}
}

/* with a budget, j's kept files made anew in its work folder: empty, the
 * jailed uid's (a link or what else an earlier jail left there removed);
 * 0 or -1 */
static int
keepfiles(const struct jail *j)
{
	for (size_t k = 0; j->diskmb > 0 && k < sizeof j->keep / sizeof j->keep[0] && j->keep[k]; k++) {
		char *p = xasprintf("%s/%s", j->work, j->keep[k]);
		int fd;
		if (strchr(j->keep[k], '/') || (unlink(p) < 0 && errno != ENOENT) ||
		    (fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
			if (strchr(j->keep[k], '/'))
				errno = EINVAL;
			free(p);
			return -1;
		}
		free(p);
		if (getuid() == 0 && fchown(fd, j->uid, j->uid) < 0) {
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* whether the tmpfs of fd (a jail's /tmp, from rep unless fd is it
 * already) is full: the jail tried to write more than its budget; rep
 * and the tmpfs closed */
static int
budgetspent(int rep, int fd)
{
	int full = 0;

	if (fd < 0)
		fd = fdrecv(rep);
	struct statvfs sv;

	/* a write that does not fit fills the tmpfs to its last page */
	if (fd >= 0 && fstatvfs(fd, &sv) == 0)
		full = (double)sv.f_bfree * (double)sv.f_frsize < 65536;
	if (fd >= 0)
		close(fd);
	if (rep >= 0)
		close(rep);
	return full;
}

int
runcapture(char *const argv[], const char *dir, const char *input, const struct runlimits *lim,
           size_t logmax, struct run *r)
{
	int out[2], in[2] = { -1, -1 }, ex[2], rep[2] = { -1, -1 }, e;
	pid_t pid;
	double t0 = now();
	struct runlimits l = *lim;
	struct jail jl;
	char cg[PATH_MAX] = "";
	struct watch w = { 0, -1, -1, 0 };

	memset(r, 0, sizeof *r);
	r->status = -1; /* until waitpid says otherwise */
	bufinit(&r->log, logmax);
	if (lim->jail) {
		jailkind(); /* probed here, not in the child */
		if (!pidns())
			sweeping();
		jl = *lim->jail;
		jl.uid = jailuidof(jl.trusted, getpid());
		jl.reportfd = -1;
		l.jail = &jl;
		if ((getuid() == 0 && chown(jl.work, jl.uid, jl.uid) < 0) || keepfiles(&jl) < 0 ||
		    ((jl.diskmb > 0 || jl.workmb > 0) && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, rep) < 0) ||
		    jailcgmake(cg, sizeof cg, lim->memmb) < 0) {
			e = errno;
			buffree(&r->log);
			for (int k = 0; k < 2; k++)
				if (rep[k] >= 0)
					close(rep[k]);
			errno = e;
			return -1;
		}
		jl.reportfd = rep[1];
		jl.cgroup = cg[0] ? cg : NULL;
		if (jl.diskmb <= 0 && jl.workmb > 0)
			w.before = du(jl.work);
	}
	/* ex: the child's errno when it cannot start; closed by a good exec */
	if (pipe(out) < 0 || pipe2(ex, O_CLOEXEC) < 0 || (input && pipe(in) < 0) || (pid = spawn()) < 0) {
		e = errno;
		buffree(&r->log);
		for (int k = 0; k < 2; k++)
			if (rep[k] >= 0)
				close(rep[k]);
		jailcgdone(cg);
		errno = e;
		return -1;
	}
	if (pid == 0)
		runchild(argv, dir, input, &l, in, out, ex);
	close(out[1]);
	close(ex[1]);
	if (rep[1] >= 0)
		close(rep[1]);
	if (read(ex[0], &e, sizeof e) == (ssize_t)sizeof e) { /* it did not start */
		close(ex[0]);
		close(out[0]);
		if (input) {
			close(in[0]);
			close(in[1]);
		}
		waitpid(pid, NULL, 0);
		reaped(pid);
		budgetspent(rep[0], -1);
		jailcgdone(cg);
		buffree(&r->log);
		errno = e;
		return -1;
	}
	close(ex[0]);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	if (input) {
		close(in[0]);
		fcntl(in[1], F_SETFL, O_NONBLOCK);
		signal(SIGPIPE, SIG_IGN);
	}
	w.rep = rep[0];
	runwait(pid, out[0], input, &in[1], &l, t0, &w, r);
	reaped(pid);
	kill(-pid, SIGKILL); /* stray children of the group */
	if (lim->jail && !pidns())
		sweeporphans(); /* and of other sessions */
	jailcgdone(cg);     /* and what is left in its cgroup */
	r->diskfull |= outgrew(l.jail, &w);
	r->diskfull |= budgetspent(rep[0], w.tmpfd); /* when all in the jail is gone */
	if (in[1] >= 0)
		close(in[1]);
	close(out[0]);
	r->seconds = now() - t0;
	return 0;
}

/* ------------------------------------------------------- the harness */

void
childshmmake(struct child *c, size_t to)
{
	size_t from = c->made;

	if (to > c->shmlen)
		to = c->shmlen;
	if (to <= from)
		return;
	touchpages(c->shm + from, to - from, 1);
	c->made = to;
}

int
childshm(struct child *c, size_t shmbytes, size_t made, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	c->cmdfd = c->repfd = c->shmfd = c->sockfd = -1;
	c->shmlen = shmbytes;
	/* sealed at its size: a child that shrank it would make our reads of
	 * its pages fault (SIGBUS), one that grew it would pass a size check */
	c->shmfd = memfd_create("retort-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (c->shmfd < 0 || ftruncate(c->shmfd, (off_t)(shmbytes ? shmbytes : 1)) < 0 ||
	    fcntl(c->shmfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		snprintf(err, errlen, "cannot make shared memory: %s", strerror(errno));
		return -1;
	}
	c->shm = mmap(NULL, shmbytes ? shmbytes : 1, PROT_READ | PROT_WRITE, MAP_SHARED, c->shmfd, 0);
	if (c->shm == MAP_FAILED) {
		snprintf(err, errlen, "cannot map shared memory: %s", strerror(errno));
		return -1;
	}
	/* the first made bytes' pages made now, on all CPUs, before the GPU is
	 * taken, not as the harness first pins or copies into them (a cold
	 * copy 0.42 s/GiB on an H200 host, pinning them once made 0.08:
	 * bench/gpu-shm.cu); the rest where the caller needs them */
	childshmmake(c, made);
	return 0;
}

/* the scratch folder: the unprivileged child owns it, with its own copies */
static int
scratchsetup(struct child *c, const char *harness, const char *so, uid_t uid, int *outfd, char *err, size_t errlen)
{
	char *p = tempdir(access("/var/tmp", W_OK) == 0 ? "/var/tmp/retort-sandbox" : "/tmp/retort-sandbox", "run");

	/* gone at exit, die() included, if childstop did not remove it; a
	 * killed run's is swept by the next */
	if (!p || strlen(p) >= sizeof c->scratch) {
		snprintf(err, errlen, "cannot make a scratch folder: %s", p ? "name too long" : strerror(errno));
		c->scratch[0] = 0;
		free(p);
		return -1;
	}
	strcpy(c->scratch, p);
	free(p);
	p = xasprintf("%s/harness", c->scratch);
	if (copytemp(harness, p, 0755) < 0) {
		snprintf(err, errlen, "cannot copy the harness '%s': %s", harness, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	p = xasprintf("%s/cand.so", c->scratch);
	if (copytemp(so, p, 0644) < 0) {
		snprintf(err, errlen, "cannot copy the candidate '%s': %s", so, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	p = xasprintf("%s/output", c->scratch);
	*outfd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	free(p);
	if (*outfd < 0) {
		snprintf(err, errlen, "cannot set up the scratch folder: %s", strerror(errno));
		return -1;
	}
	if (getuid() == 0 && (chown(c->scratch, uid, uid) < 0 || fchown(*outfd, uid, uid) < 0)) {
		snprintf(err, errlen, "cannot hand the scratch folder to uid %d: %s", (int)uid, strerror(errno));
		close(*outfd);
		*outfd = -1;
		return -1;
	}
	return 0;
}

int
childstart(struct child *c, const struct childprog *p, char *err, size_t errlen)
{
	int cmdp[2], repp[2], sockp[2] = { -1, -1 }, outfd = -1;
	char dev[64];
	pid_t pid;
	struct jail j;
	uid_t uid = jailuidof(c->trusted, getpid()); /* the scratch folder's owner, and the harness's */

	if (c->shmfd < 0 || !c->shm) {
		snprintf(err, errlen, "childstart needs childshm first");
		return -1;
	}
	if (scratchsetup(c, p->harness, p->so, uid, &outfd, err, errlen) < 0)
		return -1;
	cmdp[0] = cmdp[1] = repp[0] = repp[1] = -1;
	if (pipe2(cmdp, O_CLOEXEC) < 0 || pipe2(repp, O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockp) < 0) {
		snprintf(err, errlen, "cannot set up the child: %s", strerror(errno));
		goto fail;
	}
	memset(&j, 0, sizeof j);
	j.work = c->scratch;
	j.venv = c->venv;
	j.pycache = c->pycache;
	j.gpu = 1;
	j.seconds = p->seconds;
	/* device is the slot leased: the harness sees that GPU alone, as device 0 */
	gpudevice(p->device, dev, sizeof dev);
	j.gpudevice = dev;
	j.trusted = c->trusted;
	j.uid = uid;
	j.diskmb = JAIL_HARNESS_DISKMB; /* its output file alone on the host */
	j.keep[0] = "output";
	if (jailcgmake(c->cgroup, sizeof c->cgroup, 0) < 0) {
		snprintf(err, errlen, "cannot make the harness's cgroup: %s", strerror(errno));
		goto fail;
	}
	j.cgroup = c->cgroup[0] ? c->cgroup : NULL;
	jailaddpaths(&j, p->wrapper);
	if (c->venv) { /* its interpreter's prefix too, where the environment's bin/python leads */
		char *py = xasprintf("%s/bin/python", c->venv);
		const char *progs[] = { py, NULL };
		jailaddpaths(&j, progs);
		free(py);
	}
	jailkind(); /* probed here, not in the child */

	/* orphans of the child become ours, for childstop to reap */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (!pidns())
		sweeping();
	pid = spawn();
	if (pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		jailfreepaths(&j);
		goto fail;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		char *argv[24], *h = jailpath(&j, "harness"), *s = jailpath(&j, "cand.so");
		int n = 0;
		/* move everything above 20 first, so that no dup2 clobbers another */
		int a = fcntl(cmdp[0], F_DUPFD, 20), b = fcntl(repp[1], F_DUPFD, 20);
		int sh = fcntl(c->shmfd, F_DUPFD, 20), o = fcntl(outfd, F_DUPFD, 20);
		int z = fcntl(devnull, F_DUPFD, 20), so = fcntl(sockp[1], F_DUPFD, 20);
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* our death ends it, as in runcapture */
		/* descriptors 0-2, then 3, 4, 5, 6 and nothing else */
		dup2(z, 0);
		dup2(o, 1);
		dup2(o, 2);
		dup2(a, 3);
		dup2(b, 4);
		dup2(sh, 5);
		dup2(so, 6);
		for (int fd = 7; fd < 1024; fd++)
			close(fd);
		for (const char *const *w = p->wrapper; w && *w && n < 16; w++)
			argv[n++] = (char *)*w;
		argv[n++] = h;
		argv[n++] = s;
		argv[n++] = (char *)p->entry;
		argv[n++] = "0";
		if (p->extra)
			argv[n++] = (char *)p->extra;
		argv[n] = NULL;
		jailexec(&j, argv);
		_exit(127);
	}
	jailfreepaths(&j);
	close(cmdp[0]);
	close(repp[1]);
	close(sockp[1]);
	close(outfd);
	c->pid = pid;
	c->cmdfd = cmdp[1];
	c->repfd = repp[0];
	c->sockfd = sockp[0];
	fcntl(c->repfd, F_SETFL, O_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);
	return 0;
fail:
	jailcgdone(c->cgroup);
	c->cgroup[0] = 0;
	for (int k = 0; k < 2; k++) {
		if (cmdp[k] >= 0)
			close(cmdp[k]);
		if (repp[k] >= 0)
			close(repp[k]);
		if (sockp[k] >= 0)
			close(sockp[k]);
	}
	close(outfd);
	return -1;
}

int
childsendfd(struct child *c, int fd)
{
	return fdsend(c->sockfd, fd);
}

int
childrecvfd(struct child *c)
{
	return fdrecv(c->sockfd);
}

int
childsend(struct child *c, const char *fmt, ...)
{
	char line[16384];
	va_list ap;
	int n;
	size_t off = 0;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof line - 1)
		return -1;
	line[n++] = '\n';
	while (off < (size_t)n) {
		ssize_t w = write(c->cmdfd, line + off, (size_t)n - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

int
childread(struct child *c, char *line, size_t cap, double seconds)
{
	double end = now() + seconds;

	for (;;) {
		char *nl = memchr(c->rbuf, '\n', c->rlen);
		struct pollfd pfd = { c->repfd, POLLIN, 0 };
		double left;
		ssize_t k;

		if (nl) {
			size_t n = (size_t)(nl - c->rbuf);
			snprintf(line, cap, "%.*s", (int)n, c->rbuf);
			memmove(c->rbuf, nl + 1, c->rlen - n - 1);
			c->rlen -= n + 1;
			return 0;
		}
		if (c->rlen == sizeof c->rbuf) /* a line longer than any reply */
			return -2;
		left = end - now();
		if (left <= 0)
			return -1;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			return -2;
		k = read(c->repfd, c->rbuf + c->rlen, sizeof c->rbuf - c->rlen);
		if (k == 0)
			return -2;
		if (k > 0)
			c->rlen += (size_t)k;
	}
}

void
childkill(struct child *c)
{
	if (c->pid > 0) {
		kill(-c->pid, SIGKILL);
		kill(c->pid, SIGKILL);
	}
}

void
childdetach(struct child *c)
{
	if (c->cmdfd >= 0) close(c->cmdfd);
	if (c->repfd >= 0) close(c->repfd);
	if (c->sockfd >= 0) close(c->sockfd);
	if (c->shmfd >= 0) close(c->shmfd);
	if (c->shm && c->shm != MAP_FAILED) munmap(c->shm, c->shmlen ? c->shmlen : 1);
	c->cmdfd = c->repfd = c->shmfd = c->sockfd = -1;
	c->shm = NULL;
}

int
childstop(struct child *c)
{
	int status = 0;

	if (c->pid > 0) {
		/* let it quit on its own first: a clean exit releases the GPU faster */
		double end = now() + 2;
		childsend(c, "quit");
		while (waitpid(c->pid, &status, WNOHANG) == 0 && now() < end)
			usleep(5000);
		if (waitpid(c->pid, &status, WNOHANG) == 0) {
			kill(-c->pid, SIGKILL);
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &status, 0);
		}
		kill(-c->pid, SIGKILL); /* anything it left behind in its group */
		/* what the child leaves behind is reparented to us (a subreaper):
		 * reap the group (5 s at most), so that nothing of it, a PID
		 * namespace's init killed with the waiter included, still holds
		 * the GPU when we return */
		for (end = now() + 5;;) {
			pid_t w = waitpid(-c->pid, NULL, WNOHANG);
			if ((w < 0 && errno != EINTR) || (w == 0 && now() > end))
				break;
			if (w == 0)
				usleep(1000);
		}
		reaped(c->pid);
		/* without a PID namespace, what it forked into a session of its
		 * own is ours now, and alive: ended too */
		if (!pidns())
			sweeporphans();
		c->pid = 0;
	}
	jailcgdone(c->cgroup);
	c->cgroup[0] = 0;
	if (c->cmdfd >= 0) close(c->cmdfd);
	if (c->repfd >= 0) close(c->repfd);
	if (c->sockfd >= 0) close(c->sockfd);
	c->sockfd = -1;
	if (c->shm && c->shm != MAP_FAILED) munmap(c->shm, c->shmlen ? c->shmlen : 1);
	if (c->shmfd >= 0) close(c->shmfd);
	c->cmdfd = c->repfd = c->shmfd = c->sockfd = -1;
	c->shm = NULL;
	if (c->scratch[0] && !c->stopped) { /* once: a second stop keeps what the first kept */
		childoutput(c, c->tail, sizeof c->tail);
		c->stopped = 1;
		tempdone(c->scratch);
	}
	return status;
}

/* pid as a child of ours, not reaped: 1 running, 0 ended, -1 not ours */
static int
childof(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return -1;
	return si.si_pid == 0;
}

int
childhandover(struct child *c, char *out, size_t cap)
{
	const int fds[] = { c->cmdfd, c->repfd, c->shmfd, c->sockfd };
	int n;

	struct pollfd pf = { c->repfd, POLLIN, 0 };

	/* alive, and no reply line left unread, in our buffer or in the pipe */
	if (c->pid <= 0 || c->stopped || c->rlen || childof(c->pid) != 1 || poll(&pf, 1, 0) != 0)
		return -1;
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
		if (fcntl(fds[i], F_SETFD, 0) < 0)
			return -1;
	n = snprintf(out, cap, "%ld %d %d %d %d %zu %zu %s %s", (long)c->pid, c->cmdfd, c->repfd, c->shmfd, c->sockfd,
	             c->shmlen, c->made, c->cgroup[0] ? c->cgroup : "-", c->scratch);
	if (n < 0 || (size_t)n >= cap)
		return -1;
	if (c->shm && c->shm != MAP_FAILED)
		munmap(c->shm, c->shmlen ? c->shmlen : 1);
	c->shm = NULL;
	return 0;
}

int
childadopt(struct child *c, const char *line, char *err, size_t errlen)
{
	long pid;
	int k = 0, fds[4];
	size_t g = 0;
	struct stat st;

	memset(c, 0, sizeof *c);
	c->cmdfd = c->repfd = c->shmfd = c->sockfd = -1;
	if (sscanf(line, "%ld %d %d %d %d %zu %zu %n", &pid, &fds[0], &fds[1], &fds[2], &fds[3], &c->shmlen, &c->made,
	           &k) == 7 && k) { /* its cgroup ("-" none), then the scratch folder */
		g = strcspn(line + k, " ");
		if (g < sizeof c->cgroup && line[k + g] == ' ' && (line[k] == '/' || (g == 1 && line[k] == '-')))
			snprintf(c->cgroup, sizeof c->cgroup, "%.*s", line[k] == '/' ? (int)g : 0, line + k);
		else
			k = 0;
		k += k ? (int)g + 1 : 0;
	}
	if (!k || pid <= 0 || strlen(line + k) >= sizeof c->scratch || line[k] != '/' || childof((pid_t)pid) < 0) {
		c->cgroup[0] = 0;
		snprintf(err, errlen, "not a handed-over harness: '%.200s'", line);
		return -1;
	}
	/* ours from here: childstop ends and reaps it, the folder goes at exit */
	c->pid = (pid_t)pid;
	adopted(c->pid);
	strcpy(c->scratch, line + k);
	tempadd(c->scratch);
	for (int i = 0; i < 4; i++)
		if (fds[i] < 3 || fcntl(fds[i], F_SETFD, FD_CLOEXEC) < 0) {
			snprintf(err, errlen, "the handed-over harness's descriptor %d is not open", fds[i]);
			return -1;
		}
	c->cmdfd = fds[0];
	c->repfd = fds[1];
	c->shmfd = fds[2];
	c->sockfd = fds[3];
	if (childof((pid_t)pid) != 1) {
		snprintf(err, errlen, "it had ended");
		return 1;
	}
	if (fstat(c->shmfd, &st) < 0 || (size_t)st.st_size < c->shmlen ||
	    fcntl(c->shmfd, F_GET_SEALS) != (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) ||
	    (c->shm = mmap(NULL, c->shmlen ? c->shmlen : 1, PROT_READ | PROT_WRITE, MAP_SHARED, c->shmfd, 0)) == MAP_FAILED) {
		c->shm = NULL;
		snprintf(err, errlen, "cannot map the handed-over harness's shared memory: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void
describestatus(int status, char *out, size_t cap)
{
	if (WIFSIGNALED(status))
		snprintf(out, cap, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		snprintf(out, cap, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(out, cap, "ended (status 0x%x)", status);
}

void
childoutput(struct child *c, char *out, size_t cap)
{
	struct stat st;
	char *p;
	int fd;
	off_t size;
	ssize_t n = 0;

	if (!c->scratch[0] || c->stopped) { /* stopped: what childstop kept */
		snprintf(out, cap, "%s", c->tail);
		return;
	}
	/* the child owns the folder: its output may have become a link to a
	 * host file or a FIFO by now, so only a regular file is read */
	p = xasprintf("%s/output", c->scratch);
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	free(p);
	out[0] = 0;
	if ((fd < 0 && errno == ELOOP) || (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)))) {
		if (fd >= 0)
			close(fd);
		snprintf(out, cap, "(its output file was replaced by something not a regular file)");
		return;
	}
	if (fd < 0 || cap < 2)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size > (off_t)(cap - 1))
		lseek(fd, size - (off_t)(cap - 1), SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, out, cap - 1);
	out[n > 0 ? n : 0] = 0;
	for (p = out; *p; p++)
		if ((unsigned char)*p < 32 && *p != '\n')
			*p = ' ';
	close(fd);
}

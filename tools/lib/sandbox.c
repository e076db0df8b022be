/* sandbox.c - see sandbox.h */
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

enum { SANDBOX_UID = 65534 };
#define SANDBOX_ID "65534" /* the same, for bubblewrap's command line */

int
hasgpu(void)
{
	return access("/dev/nvidiactl", F_OK) == 0 || access("/dev/nvidia0", F_OK) == 0;
}

int
gpulock(const char *dir, int ngpus, int *device)
{
	int i;

	if (ngpus < 1)
		ngpus = 1;
	if (mkdirp(dir) < 0)
		return -1;
	for (;;) {
		for (i = 0; i < ngpus; i++) {
			char *p = xasprintf("%s/gpu%d.lock", dir, i);
			int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
			free(p);
			if (fd < 0)
				return -1;
			if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
				*device = i;
				return fd;
			}
			close(fd);
		}
		usleep(20000); /* the pool should prevent this; wait for a slot */
	}
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

/* a copy into the fresh scratch folder: kernel to kernel, and no fsync
 * (the folder is thrown away with the child; this runs with the GPU held) */
static int
copyto(const char *from, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, r = -1;
	struct stat st;
	off_t left;

	if (in < 0 || fstat(in, &st) < 0 || (out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)) < 0)
		goto done;
	for (left = st.st_size; left > 0;) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);
		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
			char buf[1 << 16]; /* across file systems some kernels refuse: plain reads */
			n = read(in, buf, sizeof buf);
			if (n > 0 && write(out, buf, (size_t)n) != n)
				n = -1;
		}
		if (n <= 0)
			goto done;
		left -= n;
	}
	r = fchmod(out, mode);
done:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0)
		r = -1;
	return r;
}

/*
 * The file system a candidate sees when we are root without bubblewrap,
 * built in the child's own mount namespace: every mount read-only except
 * /dev, /proc and /sys (the CUDA driver opens and writes device and
 * proc files there; the unprivileged uid keeps it from anything else),
 * empty private /tmp, /var/tmp and /dev/shm, and the scratch folder
 * (which lives under one of those) bound back at its own path, writable.
 * mount_setattr needs Linux 5.12; without it the unprivileged uid and the
 * private temporary folders remain. Returns the scratch's fd to chdir to.
 */
static int
privateroot(int scratchfd, const char *scratch, int pidns)
{
	char src[64];
	int fd, here;

	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	/* in a new PID namespace the CUDA driver fails ("OS call failed")
	 * unless /proc is that namespace's own */
	if (pidns && mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		_exit(126);
#ifdef SYS_mount_setattr
	{
		struct { uint64_t set, clr, prop, userns; } ro = { 0x1 /* MOUNT_ATTR_RDONLY */, 0, 0, 0 },
		                                            rw = { 0, 0x1, 0, 0 };
		if (syscall(SYS_mount_setattr, AT_FDCWD, "/", 0x8000 /* AT_RECURSIVE */, &ro, sizeof ro) == 0)
			for (const char *const *d = (const char *const[]){ "/dev", "/proc", "/sys", NULL }; *d; d++)
				syscall(SYS_mount_setattr, AT_FDCWD, *d, 0x8000, &rw, sizeof rw);
	}
#endif
	/* a bind source must be a mount of this namespace: open it here */
	if ((here = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return scratchfd;
	for (const char *const *t = (const char *const[]){ "/tmp", "/var/tmp", "/dev/shm", NULL }; *t; t++)
		mount("tmpfs", *t, "tmpfs", MS_NOSUID | MS_NODEV, "size=64m,mode=1777");
	/* the scratch folder, reached through that fd, at its old path */
	snprintf(src, sizeof src, "/proc/self/fd/%d", here);
	if (mkdir(scratch, 0700) < 0 || mount(src, scratch, NULL, MS_BIND, NULL) < 0)
		return scratchfd;
#ifdef SYS_mount_setattr
	{
		struct { uint64_t set, clr, prop, userns; } rw = { 0, 0x1, 0, 0 };
		syscall(SYS_mount_setattr, AT_FDCWD, scratch, 0, &rw, sizeof rw);
	}
#endif
	fd = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd >= 0 ? fd : scratchfd;
}

/*
 * Which namespaces a root child can have here, probed once per process in
 * a throwaway child: 2 network, mount, IPC and PID (with its own /proc,
 * which some containers refuse); 1 the first three; 0 none.
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
	if ((p = fork()) == 0) {
		pid_t q;
		if (unshare(CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC) < 0)
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
	return level;
}

/*
 * After unshare(CLONE_NEWPID) the next child is the namespace's init:
 * fork it to run the harness while this process waits and exits as it
 * did. When that init dies, the kernel kills everything else in the
 * namespace — whatever the candidate forked, even into a new session —
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
limits(int seconds, uid_t uid)
{
	struct rlimit core = { 0, 0 }, fsize = { 64 << 20, 64 << 20 }, nofile = { 256, 256 };
	struct rlimit cpu = { (rlim_t)seconds, (rlim_t)seconds + 5 };
	struct rlimit nproc;

	nproc.rlim_cur = nproc.rlim_max = (rlim_t)(processes(uid) + 256);
	setrlimit(RLIMIT_CORE, &core);
	setrlimit(RLIMIT_FSIZE, &fsize);
	setrlimit(RLIMIT_NOFILE, &nofile);
	setrlimit(RLIMIT_CPU, &cpu);
	setrlimit(RLIMIT_NPROC, &nproc);
}

/* the environment the child sees: nothing of ours */
static char **
childenv(const char *home)
{
	static char *env[8];
	const char *ld = getenv("LD_LIBRARY_PATH");
	int n = 0;

	env[n++] = "PATH=/usr/local/bin:/usr/bin:/bin";
	env[n++] = xasprintf("HOME=%s", home);
	env[n++] = "LC_ALL=C";
	if (ld && *ld)
		env[n++] = xasprintf("LD_LIBRARY_PATH=%s", ld);
	env[n] = NULL;
	return env;
}

int
childshm(struct child *c, size_t shmbytes, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	c->cmdfd = c->repfd = c->shmfd = c->scratchfd = -1;
	c->shmlen = shmbytes;
	c->shmfd = memfd_create("retort-shm", MFD_CLOEXEC);
	if (c->shmfd < 0 || ftruncate(c->shmfd, (off_t)(shmbytes ? shmbytes : 1)) < 0) {
		snprintf(err, errlen, "cannot make shared memory: %s", strerror(errno));
		return -1;
	}
	c->shm = mmap(NULL, shmbytes ? shmbytes : 1, PROT_READ | PROT_WRITE, MAP_SHARED, c->shmfd, 0);
	if (c->shm == MAP_FAILED) {
		snprintf(err, errlen, "cannot map shared memory: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int
childstart(struct child *c, const char *harness, const char *so, const char *entry, int device,
           int seconds, char *err, size_t errlen)
{
	return childstartwrapped(c, NULL, harness, so, entry, device, seconds, err, errlen);
}

int
childstartwrapped(struct child *c, const char *const *wrapper, const char *harness, const char *so,
                  const char *entry, int device, int seconds, char *err, size_t errlen)
{
	int cmdp[2], repp[2], outfd;
	char *bwrap = findprog("bwrap"), *p, dev[16];
	pid_t pid;
	int ns = 0;

	if (c->shmfd < 0 || !c->shm) {
		snprintf(err, errlen, "childstart needs childshm first");
		free(bwrap);
		return -1;
	}
	/* a scratch folder the unprivileged child owns, with its own copies */
	snprintf(c->scratch, sizeof c->scratch, "%s/retort-sandbox.XXXXXX",
	         access("/var/tmp", W_OK) == 0 ? "/var/tmp" : "/tmp");
	if (!mkdtemp(c->scratch)) {
		snprintf(err, errlen, "cannot make a scratch folder: %s", strerror(errno));
		return -1;
	}
	p = xasprintf("%s/harness", c->scratch);
	if (copyto(harness, p, 0755) < 0) {
		snprintf(err, errlen, "cannot copy the harness '%s': %s", harness, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	p = xasprintf("%s/cand.so", c->scratch);
	if (copyto(so, p, 0644) < 0) {
		snprintf(err, errlen, "cannot copy the candidate '%s': %s", so, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	p = xasprintf("%s/output", c->scratch);
	outfd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	free(p);
	/* root hands the child to SANDBOX_UID (with bubblewrap too: processes of
	 * uid 0 escape RLIMIT_NPROC), which must own the scratch folder */
	if (getuid() == 0) {
		if (chown(c->scratch, SANDBOX_UID, SANDBOX_UID) < 0 || (outfd >= 0 && fchown(outfd, SANDBOX_UID, SANDBOX_UID) < 0)) {
			snprintf(err, errlen, "cannot hand the scratch folder to uid %d: %s", SANDBOX_UID, strerror(errno));
			return -1;
		}
	}
	c->scratchfd = open(c->scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (outfd < 0 || c->scratchfd < 0 || pipe2(cmdp, O_CLOEXEC) < 0 || pipe2(repp, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "cannot set up the child: %s", strerror(errno));
		return -1;
	}
	snprintf(dev, sizeof dev, "%d", device);
	if (bwrap)
		snprintf(c->isolation, sizeof c->isolation, "bubblewrap (user, net, mount, pid namespaces), uid %d, "
		         "rlimits", SANDBOX_UID);
	else if (getuid() == 0 && (ns = nslevel()) > 0)
		snprintf(c->isolation, sizeof c->isolation, "unshare (net, mount%s; read-only root, private /tmp), uid %d, "
		         "rlimits; no bubblewrap", ns == 2 ? ", pid" : "", SANDBOX_UID);
	else if (getuid() == 0)
		snprintf(c->isolation, sizeof c->isolation, "uid %d, rlimits; no bubblewrap, no namespaces", SANDBOX_UID);
	else
		snprintf(c->isolation, sizeof c->isolation, "rlimits only (no bubblewrap, not root)");

	/* orphans of the child become ours, for childstop to reap */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		char **env = childenv(bwrap ? "/work" : c->scratch);
		/* move everything above 20 first, so that no dup2 clobbers another */
		int a = fcntl(cmdp[0], F_DUPFD, 20), b = fcntl(repp[1], F_DUPFD, 20);
		int sh = fcntl(c->shmfd, F_DUPFD, 20), o = fcntl(outfd, F_DUPFD, 20);
		int z = fcntl(devnull, F_DUPFD, 20);
		c->scratchfd = fcntl(c->scratchfd, F_DUPFD_CLOEXEC, 20);
		setpgid(0, 0);
		/* descriptors 0-2, then 3, 4, 5 and nothing else */
		dup2(z, 0);
		dup2(o, 1);
		dup2(o, 2);
		dup2(a, 3);
		dup2(b, 4);
		dup2(sh, 5);
		for (int fd = 6; fd < 1024; fd++)
			if (fd != c->scratchfd)
				close(fd);
		if (bwrap && getuid() == 0 &&
		    (setgroups(0, NULL) < 0 || setgid(SANDBOX_UID) < 0 || setuid(SANDBOX_UID) < 0))
			_exit(126);
		if (bwrap || getuid() != 0) /* else below, once the uid is dropped */
			limits(seconds, getuid());
		if (bwrap) {
			char *argv[96];
			int n = 0;
			struct stat st;
			const char *nodes[] = { "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
			                        "/dev/nvidia-modeset", "/dev/nvidia-caps", "/dev/dri", NULL };
			argv[n++] = bwrap;
			argv[n++] = "--unshare-all";
			argv[n++] = "--unshare-user";
			argv[n++] = "--uid"; argv[n++] = SANDBOX_ID;
			argv[n++] = "--gid"; argv[n++] = SANDBOX_ID;
			argv[n++] = "--die-with-parent";
			argv[n++] = "--new-session";
			argv[n++] = "--cap-drop"; argv[n++] = "ALL";
			argv[n++] = "--ro-bind"; argv[n++] = "/usr"; argv[n++] = "/usr";
			for (const char *const *d = (const char *const[]){ "/lib", "/lib64", "/bin", "/sbin", NULL }; *d; d++) {
				if (lstat(*d, &st) < 0)
					continue;
				if (S_ISLNK(st.st_mode)) {
					char target[PATH_MAX];
					ssize_t k = readlink(*d, target, sizeof target - 1);
					if (k <= 0)
						continue;
					target[k] = 0;
					argv[n++] = "--symlink"; argv[n++] = xstrdup(target); argv[n++] = (char *)*d;
				} else {
					argv[n++] = "--ro-bind"; argv[n++] = (char *)*d; argv[n++] = (char *)*d;
				}
			}
			argv[n++] = "--ro-bind-try"; argv[n++] = "/etc/ld.so.cache"; argv[n++] = "/etc/ld.so.cache";
			argv[n++] = "--ro-bind-try"; argv[n++] = "/etc/ld.so.conf"; argv[n++] = "/etc/ld.so.conf";
			argv[n++] = "--ro-bind-try"; argv[n++] = "/etc/ld.so.conf.d"; argv[n++] = "/etc/ld.so.conf.d";
			argv[n++] = "--ro-bind-try"; argv[n++] = "/usr/local/nvidia"; argv[n++] = "/usr/local/nvidia";
			argv[n++] = "--dev"; argv[n++] = "/dev";
			for (const char *const *d = nodes; *d; d++) {
				argv[n++] = "--dev-bind-try"; argv[n++] = (char *)*d; argv[n++] = (char *)*d;
			}
			for (int g = 0; g < 16 && n < 80; g++) {
				char *node = xasprintf("/dev/nvidia%d", g);
				if (access(node, F_OK) == 0) {
					argv[n++] = "--dev-bind"; argv[n++] = node; argv[n++] = node;
				}
			}
			argv[n++] = "--proc"; argv[n++] = "/proc";
			argv[n++] = "--tmpfs"; argv[n++] = "/tmp";
			argv[n++] = "--bind"; argv[n++] = c->scratch; argv[n++] = "/work";
			argv[n++] = "--chdir"; argv[n++] = "/work";
			for (const char *const *w = wrapper; w && *w && n < 88; w++)
				argv[n++] = (char *)*w;
			argv[n++] = "/work/harness";
			argv[n++] = "/work/cand.so";
			argv[n++] = (char *)entry;
			argv[n++] = dev;
			argv[n] = NULL;
			execve(bwrap, argv, env);
			_exit(127);
		}
		if (getuid() == 0) {
			/* no network; a private /tmp; then give up root */
			int cwd = c->scratchfd;
			if (ns > 0) {
				if (unshare(CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | (ns == 2 ? CLONE_NEWPID : 0)) < 0)
					_exit(126);
				if (ns == 2)
					nsinit();
				cwd = privateroot(c->scratchfd, c->scratch, ns == 2);
			}
			if (fchdir(cwd) < 0 || setgroups(0, NULL) < 0 || setgid(SANDBOX_UID) < 0 ||
			    setuid(SANDBOX_UID) < 0)
				_exit(126);
			limits(seconds, SANDBOX_UID);
		} else if (fchdir(c->scratchfd) < 0) {
			_exit(126);
		}
		{
			char *argv[24];
			int n = 0;
			for (const char *const *w = wrapper; w && *w && n < 18; w++)
				argv[n++] = (char *)*w;
			argv[n++] = "./harness";
			argv[n++] = "./cand.so";
			argv[n++] = (char *)entry;
			argv[n++] = dev;
			argv[n] = NULL;
			execve(argv[0], argv, env);
		}
		_exit(127);
	}
	close(cmdp[0]);
	close(repp[1]);
	close(outfd);
	free(bwrap);
	c->pid = pid;
	c->cmdfd = cmdp[1];
	c->repfd = repp[0];
	fcntl(c->repfd, F_SETFL, O_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);
	return 0;
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
		c->pid = 0;
	}
	if (c->cmdfd >= 0) close(c->cmdfd);
	if (c->repfd >= 0) close(c->repfd);
	if (c->shm && c->shm != MAP_FAILED) munmap(c->shm, c->shmlen ? c->shmlen : 1);
	if (c->shmfd >= 0) close(c->shmfd);
	c->cmdfd = c->repfd = c->shmfd = -1;
	c->shm = NULL;
	if (c->scratch[0] && !c->stopped) { /* once: a second stop keeps what the first kept */
		pid_t p;
		childoutput(c, c->tail, sizeof c->tail);
		c->stopped = 1;
		p = fork();
		if (p == 0) {
			execl("/bin/rm", "rm", "-rf", c->scratch, (char *)NULL);
			_exit(127);
		}
		if (p > 0)
			waitpid(p, NULL, 0);
	}
	if (c->scratchfd >= 0) close(c->scratchfd);
	c->scratchfd = -1;
	return status;
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
	char *p;
	int fd;

	if (!c->scratch[0] || c->stopped) { /* stopped: what childstop kept */
		snprintf(out, cap, "%s", c->tail);
		return;
	}
	p = xasprintf("%s/output", c->scratch);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	off_t size;
	ssize_t n = 0;

	free(p);
	out[0] = 0;
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

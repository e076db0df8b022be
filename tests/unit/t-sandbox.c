/* t-sandbox.c - the sandbox that verify and bench run candidates in,
 * exercised on the CPU with tests/unit/fake-harness.c */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/jail/sandbox.h"
#include "../../src/lib/util.h"
#include "../lib/tap.h"

/* processes of the group that still run (zombies waiting for an init
 * that does not reap them do not count) */
static int
alive(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char p[300], st[512], *close;
		FILE *f;
		int pg = 0;
		char state = 0;
		snprintf(p, sizeof p, "/proc/%s/stat", e->d_name);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || !(f = fopen(p, "r")))
			continue;
		if (fgets(st, sizeof st, f) && (close = strrchr(st, ')')) &&
		    sscanf(close + 2, "%c %*d %d", &state, &pg) == 2 && pg == pgid && state != 'Z')
			n++;
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* a live process named name (zombies do not count) */
static int
named(const char *name)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char p[300], st[512], comm[64], state = 0;
		FILE *f;
		snprintf(p, sizeof p, "/proc/%s/stat", e->d_name);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || !(f = fopen(p, "r")))
			continue;
		if (fgets(st, sizeof st, f) && sscanf(st, "%*d (%63[^)]) %c", comm, &state) == 2 &&
		    !strcmp(comm, name) && state != 'Z')
			n++;
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* what the tests share: the child, its last reply, and what its probes reach for */
static struct child c;
static char err[1024], line[1024], fake[4096], secret[4096], host[4096], dir[] = "/tmp/t-sandbox.XXXXXX";
static char readme[4200];
static int port;

/* the fake harness, a secret to reach for, a place to write, a listener on loopback; the listener */
static int
setup(char **argv)
{
	int srv, one = 1;
	struct sockaddr_in a;
	socklen_t len = sizeof a;

	snprintf(readme, sizeof readme, "%s/README.md", getenv("RETORT_ROOT") ? getenv("RETORT_ROOT") : ".");
	/* the fake harness sits next to this test binary */
	snprintf(fake, sizeof fake, "%s", argv[0]);
	*strrchr(fake, '/') = 0;
	strcat(fake, "/fake-harness");
	need(mkdtemp(dir) != NULL, "make a scratch folder");
	snprintf(secret, sizeof secret, "%s/secret", dir);
	snprintf(host, sizeof host, "%s/pwned", dir);
	ok(writefile(secret, "s3cr3t", 6) == 1, "a file the candidate must not read");
	chmod(dir, 0755);
	chmod(secret, 0644); /* readable by anyone: only the sandbox keeps it away */
	srv = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(srv, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok(bind(srv, (struct sockaddr *)&a, sizeof a) == 0 && listen(srv, 8) == 0 &&
	   getsockname(srv, (struct sockaddr *)&a, &len) == 0, "a listener on loopback");
	port = ntohs(a.sin_port);
	setenv("RETORT_PLANTED", "sk-should-not-leak", 1);
	return srv;
}

/* the child starts and its probe finds nothing of the host: environment, network, files */
static void
isolation(void)
{
	ok(childshm(&c, 4096, 4096, err, sizeof err) == 0 && childstart(&c, &(struct childprog){ fake, fake, "entry", 0, NULL, NULL, 20 }, err, sizeof err) == 0, "child starts: %s", err);
	printf("# isolation: %s\n", jailkind());
	if (!ok(childread(&c, line, sizeof line, 20) == 0 && !strncmp(line, "ready Fake GPU", 14), "first reply: %s", line)) {
		char out[4096];
		childoutput(&c, out, sizeof out);
		printf("# the child printed: %s\n", out);
	}
	ok(childsend(&c, "probe %s %s %d %s", secret, host, port, readme) == 0, "probe sent");
	ok(childread(&c, line, sizeof line, 20) == 0, "probe answered: %s", line);
	ok(strstr(line, "env=clean") != NULL, "the environment does not leak");
	ok(strstr(line, "user=jail") != NULL, "a user name, for programs that ask (the uid has no passwd entry)");
	ok(strstr(line, "connect=0") != NULL, "no network, not even loopback");
	if (getuid() == 0)
		ok(strstr(line, "uid=0") == NULL, "not root inside");
	if (jailroot()) {
		ok(strstr(line, "read=0") != NULL, "files outside the sandbox are out of reach, world-readable ones too");
		ok(strstr(line, "repo=0") != NULL, "the build tree is not there at all");
		ok(strstr(line, "etc=0") != NULL, "nor the host's /etc (only the loader's files)");
		ok(strstr(line, "usr=1") != NULL, "but /usr is, read-only");
	} else {
		printf("ok %d # SKIP no root of its own here (%s)\n", ++tap_count, jailkind());
	}
	ok(access(host, F_OK) != 0, "writes outside the scratch folder do not land");
	ok(strstr(line, "scratch=1") != NULL, "the candidate can write in its own folder");
	ok(strstr(line, "home=1") != NULL, "and in its home");
	ok(strstr(line, "dev=1") != NULL, "device nodes open read-write");
	ok(strstr(line, "proc=1") != NULL, "/proc/self is the candidate itself (the CUDA driver needs it)");
}

/* writes land in its /work, a tmpfs of JAIL_HARNESS_DISKMB (as root):
 * not in its scratch folder on the host's disk, nor in /var/tmp */
static void
scratchwrites(void)
{
	{
		char in[sizeof c.scratch + 16];
		snprintf(in, sizeof in, "%s/inside", c.scratch);
		if (strstr(jailkind(), "unshare"))
			ok(access(in, F_OK) != 0, "what it writes in /work stays in its tmpfs, off the host's disk");
		else
			printf("ok %d # SKIP not the root jail: /work is the scratch folder itself, or a bubblewrap tmpfs\n",
			       ++tap_count);
	}
	{
		char vt[256];
		snprintf(vt, sizeof vt, "/var/tmp/t-sandbox-pwned-%ld", (long)getpid());
		ok(childsend(&c, "probe %s %s %d %s", secret, vt, port, readme) == 0 && childread(&c, line, sizeof line, 20) == 0,
		   "probe /var/tmp: %s", line);
		ok(access(vt, F_OK) != 0, "nor in /var/tmp, where the scratch folders live");
		unlink(vt);
	}
}

/* a descriptor goes to the child over its socket and comes back: what
 * bench's kept calls travel by (the candidate's device memory, to the
 * oracle's harness) */
static void
descriptors(void)
{
	int p[2], back;
	char buf[8] = "";

	ok(pipe(p) == 0 && childsendfd(&c, p[1]) == 0, "a descriptor sent to the child");
	ok(childsend(&c, "fd") == 0 && childread(&c, line, sizeof line, 20) == 0 && !strcmp(line, "fd"),
	   "it came: %s", line);
	back = childrecvfd(&c);
	ok(back >= 0 && write(back, "ok", 2) == 2 && read(p[0], buf, 2) == 2 && !strncmp(buf, "ok", 2),
	   "and came back, the same pipe");
	ok(childrecvfd(&c) < 0, "nothing more waits");
	ok(childsend(&c, "fd") == 0 && childread(&c, line, sizeof line, 20) == 0 && !strcmp(line, "nofd"),
	   "none sent, none received: %s", line);
	close(p[0]);
	close(p[1]);
	if (back >= 0)
		close(back);
}

/* a fork bomb is stopped by a process limit, and nothing of it survives */
static void
forkbomb(void)
{
	pid_t pg;

	ok(childsend(&c, "forkbomb") == 0, "a fork bomb");
	ok(childread(&c, line, sizeof line, 60) == 0 && !strncmp(line, "forked", 6), "is stopped: %s", line);
	ok(atoi(line + 7) < 5000, "by a process limit (%d forks)", atoi(line + 7));
	pg = c.pid;
	childstop(&c);
	usleep(200000);
	ok(!alive(pg), "and nothing of it survives the stop");
}

/* a process that left the group is gone after the stop all the same */
static void
daemons(void)
{
	ok(childshm(&c, 4096, 4096, err, sizeof err) == 0 && childstart(&c, &(struct childprog){ fake, fake, "entry", 0, NULL, NULL, 20 }, err, sizeof err) == 0, "again");
	childread(&c, line, sizeof line, 20);
	{
		/* a process that left the group: gone after the stop all the same
		 * (bubblewrap's and our pid namespace take everything with them) */
		char name[16];
		snprintf(name, sizeof name, "rtd%ld", (long)getpid() % 100000);
		ok(childsend(&c, "daemon %s", name) == 0 && childread(&c, line, sizeof line, 20) == 0 &&
		   !strcmp(line, "daemon"), "a child in its own session");
		childstop(&c);
		if (getuid() == 0)
			ok(!named(name), "is gone after the stop too");
		else
			printf("ok %d # SKIP not root: no pid namespace without bubblewrap\n", ++tap_count);
		ok(childshm(&c, 4096, 4096, err, sizeof err) == 0 && childstart(&c, &(struct childprog){ fake, fake, "entry", 0, NULL, NULL, 20 }, err, sizeof err) == 0, "again");
		childread(&c, line, sizeof line, 20);
	}
}

/* a live process whose command line is argv[0] arg (zombies do not count) */
static int
running(const char *prog, const char *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char p[300], cl[256] = "", st[512] = "";
		FILE *f;
		size_t len = 0;
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
		if ((f = fopen(p, "r"))) {
			len = fread(cl, 1, sizeof cl - 1, f);
			fclose(f);
		}
		snprintf(p, sizeof p, "/proc/%s/stat", e->d_name);
		if ((f = fopen(p, "r"))) {
			if (!fgets(st, sizeof st, f))
				st[0] = 0;
			fclose(f);
		}
		if (len > strlen(prog) + 1 && !strcmp(cl, prog) && !strcmp(cl + strlen(prog) + 1, arg) &&
		    strrchr(st, ')') && strrchr(st, ')')[2] != 'Z')
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* the tool killed with SIGKILL while a jailed program computes (reading
 * nothing): the program goes with it, the parent-death signal outliving
 * the change of uid */
static void
orphans(void)
{
	char arg[32];
	int ready[2];
	pid_t tool;

	if (getuid() != 0) {
		printf("ok %d # SKIP not root: no uid change to outlive\n", ++tap_count);
		return;
	}
	snprintf(arg, sizeof arg, "%ld.5", 1000 + (long)getpid() % 100000);
	need(pipe(ready) == 0, "a pipe");
	if ((tool = fork()) == 0) {
		char *argv[] = { "/bin/sleep", arg, NULL };
		struct jail j = { .work = dir, .seconds = 60 };
		struct runlimits lim = { 60, 0, 0, &j };
		struct run r;
		close(ready[0]);
		if (write(ready[1], "r", 1) == 1)
			runcapture(argv, dir, NULL, &lim, 4096, &r);
		_exit(1);
	}
	close(ready[1]);
	{
		char r = 0;
		int got = read(ready[0], &r, 1) == 1;
		for (int k = 0; got && k < 50 && !running("/bin/sleep", arg); k++)
			usleep(100000);
		ok(got && running("/bin/sleep", arg) == 1, "a tool runs a jailed sleep");
	}
	close(ready[0]);
	kill(tool, SIGKILL);
	waitpid(tool, NULL, 0);
	for (int k = 0; k < 50 && running("/bin/sleep", arg); k++)
		usleep(100000);
	ok(!running("/bin/sleep", arg), "killing the tool ends it (no orphan with ppid 1)");
	if (running("/bin/sleep", arg)) {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "pkill -KILL -f 'sleep %s'", arg);
		if (system(cmd) != 0) { /* pkill -f matches its own shell too */
		}
	}
}

/* jails of two tools: one holding 250 processes does not stop the
 * other's forks (RLIMIT_NPROC counts a uid's processes on the whole host,
 * and each tool's jails have a uid of their own) */
static void
starvation(void)
{
	char arg[32], a[4200], b[4200], script[256];
	pid_t tool;
	int n = 0;

	if (getuid() != 0 || !strstr(jailkind(), "a uid per tool")) {
		/* bubblewrap's jails keep the caller's uid: their shared count is open (issue 41) */
		printf("ok %d # SKIP no uid of its own per tool here: %s\n", ++tap_count, jailkind());
		return;
	}
	snprintf(arg, sizeof arg, "%ld.25", 2000 + (long)getpid() % 100000);
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	need(mkdir(a, 0700) == 0 && mkdir(b, 0700) == 0, "two work folders");
	snprintf(script, sizeof script, "i=0; while [ $i -lt 250 ]; do sleep %s & i=$((i+1)); done; wait", arg);
	if ((tool = fork()) == 0) {
		char *argv[] = { "/bin/sh", "-c", script, NULL };
		struct jail j = { .work = a, .seconds = 60 };
		struct runlimits lim = { 60, 0, 0, &j };
		struct run r;
		runcapture(argv, a, NULL, &lim, 4096, &r);
		_exit(1);
	}
	for (int k = 0; k < 100 && (n = running("sleep", arg)) < 240; k++)
		usleep(100000);
	ok(n >= 240, "a tool's jail holds %d processes", n);
	{
		char *argv[] = { "/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true & done; wait && echo forked",
		                 NULL };
		struct jail j = { .work = b, .seconds = 20 };
		struct runlimits lim = { 20, 0, 0, &j };
		struct run r;
		ok(runcapture(argv, b, NULL, &lim, 4096, &r) == 0 && r.status == 0 && r.log.s && strstr(r.log.s, "forked"),
		   "another tool's jail forks all the same");
		buffree(&r.log);
	}
	kill(tool, SIGKILL);
	waitpid(tool, NULL, 0);
	for (int k = 0; k < 50 && running("sleep", arg); k++)
		usleep(100000);
	ok(!running("sleep", arg), "and the first tool's processes end with it");
}

/* a hang times out and is killed */
static void
hang(void)
{
	pid_t pg;

	childsend(&c, "hang");
	ok(childread(&c, line, sizeof line, 1) == -1, "a hang times out");
	pg = c.pid;
	childstop(&c);
	ok(!alive(pg), "and is killed");
}

int
main(int argc, char **argv)
{
	int srv;

	setprogname("t-sandbox");
	(void)argc;
	srv = setup(argv);
	isolation();
	scratchwrites();
	descriptors();
	forkbomb();
	daemons();
	orphans();
	starvation();
	hang();
	{
		char cmd[4200];
		snprintf(cmd, sizeof cmd, "/bin/rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "# cannot remove %s\n", dir);
	}
	close(srv);
	return done_testing();
}

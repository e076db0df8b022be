/*
 * sandbox.h - run untrusted programs (the harness with a candidate in it,
 * nvcc on a teacher's source, a spec's reference) where they can see
 * nothing of the host they do not need, and talk to the harness.
 *
 * A jail is what such a program sees: a root of its own holding only
 * /usr, /lib, /lib32, /lib64, /libx32, /bin and /sbin (read-only),
 * /etc/ld.so.cache and its configuration, /etc/alternatives (the
 * compilers' symlinks), the folders the jail names read-only (a CUDA
 * toolkit or a compiler outside /usr, LD_LIBRARY_PATH entries), a Python
 * virtual environment at /venv when the jail names one (a Python
 * reference's; its interpreter's prefix among the read-only folders), and
 * its bytecode at /pycache when the jail names that (prepare --runtime
 * --gpu-python's, for the Python harness), a fresh
 * /proc, an empty /tmp, a /dev with null, zero, full, random, urandom, a
 * small /dev/shm and, with gpu, the NVIDIA device nodes, and one writable
 * folder at /work (its working folder). Nothing else: no out/, no cache
 * dir (no secret), no home. It runs as an unprivileged uid in new user
 * (bubblewrap) or network, mount, IPC, UTS and PID namespaces, in a
 * process group of its own (bubblewrap: a session), with rlimits (set
 * last, after every allocation), and an environment of PATH, HOME=/work,
 * TMPDIR=/tmp, LC_ALL=C and LD_LIBRARY_PATH alone.
 *
 * Two ways to build it: as root, here (unshare, a tmpfs root, pivot_root,
 * then uid 65534, or 65533 for a child marked trusted: the spec's
 * baseline, the oracle a candidate's outputs are judged by, out of the
 * candidates' reach, their signals and ptrace included, where no PID
 * namespace parts them); as another user, with bubblewrap when it is
 * installed (user namespaces; the program keeps that user's uid outside).
 * A host that refuses a PID namespace with its own /proc gets the host's
 * /proc in the minimal root, and there what a jailed program leaves
 * behind in a session of its own is ended when it is (sweeporphans: this
 * process is their subreaper); one that refuses namespaces, or a user who
 * is not root without bubblewrap, would get rlimits and the folder alone:
 * jailweak() says so, and the tools refuse to run untrusted code there.
 * jailkind() says which, and verify and bench record it.
 *
 * The harness child gets descriptors 3 (commands), 4 (replies), 5
 * (shared memory) and 6 (a Unix socket: childsendfd, childrecvfd); its
 * stdout and stderr go to a capped file whose tail is kept.
 */
#ifndef RETORT_SANDBOX_H
#define RETORT_SANDBOX_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "../lib/util.h"

#define JAILVENV "/venv"
#define JAILPYC "/pycache"

struct jail {
	const char *work;          /* bound writable at /work, the working folder */
	const char *ro[8];         /* more read-only paths, at their own paths (NULL ends) */
	const char *venv;          /* a Python virtual environment, read-only at JAILVENV */
	const char *pycache;       /* bytecode made for this jail's paths, read-only at JAILPYC */
	int gpu;                   /* the GPU device nodes */
	const char *gpudevice;     /* with gpu: the one CUDA device it sees (CUDA_VISIBLE_DEVICES) */
	int seconds;               /* CPU seconds (RLIMIT_CPU) */
	long memmb, filemb;        /* address space and file size limits, MiB (0: none) */
	int trusted;               /* trusted code: a uid of its own, as root */
};

/* the isolation a jail gets on this machine, in words */
const char *jailkind(void);
/* 1 when a jail has a root of its own (its work folder is /work there) */
int jailroot(void);
/* NULL when a jail here hides the host's files (a root of its own), else
 * why not: the tools that run untrusted code refuse to run without one */
const char *jailweak(void);
/* the path of name in j's work folder, as the jailed program sees it (malloc'd) */
char *jailpath(const struct jail *j, const char *name);
/* the paths of LD_LIBRARY_PATH and of the folders of the given programs
 * (argv0 of nvcc, say) that lie outside the minimal root, into j->ro */
void jailaddpaths(struct jail *j, const char *const *progs);
/* free what jailaddpaths put into j->ro */
void jailfreepaths(struct jail *j);

/*
 * Run argv (argv[0] an absolute path, as the jail sees it) with input on
 * its stdin (NULL: /dev/null), stdout and stderr captured into r->log (up
 * to logmax bytes), and a wall clock of lim->seconds past which its whole
 * process group is killed (r->timedout); so is it when we die. With a
 * jail, inside it (dir is then the jail's work folder); without, in dir
 * (NULL: here) with an environment of PATH, HOME=dir and LC_ALL=C and
 * limits: CPU 2 x seconds, address space memmb MiB, files filemb MiB.
 * 0 once it ran (r->status: its exit status, or 128 + the signal), -1
 * with errno set when it could not be started. The caller frees r->log.
 */
struct run {
	int status;
	int timedout;
	double seconds;
	struct buf log;
};
struct runlimits {
	int seconds;
	long memmb, filemb;
	const struct jail *jail;   /* NULL: not jailed */
};
int runcapture(char *const argv[], const char *dir, const char *input, const struct runlimits *lim,
               size_t logmax, struct run *r);

/* ---- the harness child ---- */

struct child {
	pid_t pid;
	int cmdfd, repfd, shmfd;
	int sockfd;                 /* a Unix socket, its descriptor 6: descriptors travel over it */
	unsigned char *shm;
	size_t shmlen, made;        /* its bytes, and how many of them have their pages made */
	char rbuf[8192];
	size_t rlen;
	char scratch[PATH_MAX];
	int stopped;
	char tail[4096];             /* the end of its output, kept at stop */
	const char *venv;            /* set before childstart: a Python environment, at JAILVENV */
	const char *pycache;         /* and its bytecode (prepare --runtime --gpu-python), at JAILPYC */
	int trusted;                 /* set before childstart: trusted code (struct jail's) */
};

/*
 * A child's life: childshm (its shared memory), childstart, commands,
 * childstop. childshm initializes *c. 0, or -1 with a message in err.
 */
int childshm(struct child *c, size_t shmbytes, size_t made, char *err, size_t errlen);
/* the shared memory's pages made up to to, on all CPUs (childshm made the
 * first made bytes'): before a harness pins or copies into them */
void childshmmake(struct child *c, size_t to);
/* a descriptor to the child over its socket (its descriptor 6), or the
 * one it sent (-1: none waiting; any others that came with it closed);
 * 0 or -1 for childsendfd */
int childsendfd(struct child *c, int fd);
int childrecvfd(struct child *c);
/* what childstart runs: HARNESS on SO (entry point ENTRY) in a jail with
 * the GPU of slot DEVICE (gpulock's) alone (CUDA_VISIBLE_DEVICES is
 * gpudevice(DEVICE), device 0 inside), under WRAPPER (compute-sanitizer
 * and its options) or not (NULL), EXTRA one more argument for the harness
 * or NULL, for at most SECONDS of CPU */
struct childprog {
	const char *harness, *so, *entry;
	int device;
	const char *const *wrapper;
	const char *extra;
	int seconds;
};
int childstart(struct child *c, const struct childprog *p, char *err, size_t errlen);
/* send one command line; -1 when the child is gone */
int childsend(struct child *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* read one reply line within seconds: 0 ok, -1 timeout, -2 the child closed it */
int childread(struct child *c, char *line, size_t cap, double seconds);
/* kill the child's whole process group, reap it; returns its wait status */
int childstop(struct child *c);
/* kill the child's whole process group now, reaped by childstop later */
void childkill(struct child *c);
/*
 * A live child handed to the program this one execs (verify --bench hands
 * its harness to bench): childhandover writes what childadopt needs into
 * out (one line: its process, its descriptors, which it leaves open across
 * exec, its shared memory's size and made bytes, its scratch folder) and
 * unmaps the shared memory; 0, or -1 when c has a reply not read (in its
 * buffer or the pipe) or is gone. childadopt takes such a line back: the
 * process must be a child of this one, the descriptors open, the shared
 * memory sealed (childshm); it is mapped again, the descriptors closed on
 * exec again, the scratch folder removed at exit again. 0; 1 when the
 * child had ended meanwhile (c holds it: childstop reaps it); -1 with a
 * message in err (c holds what it took: childstop it too).
 */
int childhandover(struct child *c, char *out, size_t cap);
int childadopt(struct child *c, const char *line, char *err, size_t errlen);
/* "killed by signal 11 (Segmentation fault)" etc. from a wait status */
void describestatus(int status, char *out, size_t cap);
/* the last bytes the child printed (stdout and stderr) */
void childoutput(struct child *c, char *out, size_t cap);

/* 1 when this machine shows an NVIDIA device node */
int hasgpu(void);

/*
 * GPU leases. The slots stand for the devices CUDA_VISIBLE_DEVICES named
 * when the tool started (the user's or a scheduler's choice), else for
 * devices 0 .. ngpus-1; there are ngpus of them, or fewer when that list
 * is shorter. A lease is a flock on DIR/gpu<slot>.lock, which the kernel
 * drops when its holder dies, however it dies: no two live holders ever
 * share a slot, and a crashed one leaves none behind. With
 * RETORT_GPU_LEASE=step (scripts/slurm-launch sets it on a Slurm node) the
 * scheduler leased this process its GPUs alone: slot 0, no lock file.
 *
 * gpulock holds the first free of ngpus slots: returns the fd (closing it
 * ends the lease) and sets *device to the slot; blocks until one is free.
 * gpulockslot holds slot, waiting for it. gpuslots: how many slots
 * ngpus makes. gpudevice: the device a slot stands for, as
 * CUDA_VISIBLE_DEVICES names it ("" when the list has no such entry).
 */
int gpulock(const char *dir, int ngpus, int *device);
int gpulockslot(const char *dir, int slot);
int gpuslots(int ngpus);
void gpudevice(int slot, char *out, size_t cap);
/* the option rows (lib/opts.h) of a tool that leases a GPU: its slots,
 * their locks' folder and the seconds a call may take */
#define OPTS_GPU(gpus, lockdir, timeout) \
	{ "--gpus", "N", OPT_INT, gpus, 1, 1024, "GPU slots, one flock each in --lock-dir (default 1)" }, \
	{ "--lock-dir", "DIR", OPT_STR, lockdir, 0, 0, "the GPU slots' locks (default out/gpu)" }, \
	{ "--timeout", "S", OPT_INT, timeout, 1, 86400, "seconds per call (default 30)" }

#endif

/*
 * sandbox.h - run untrusted programs (the harness with a candidate in it,
 * nvcc on a teacher's source, a spec's reference) where they see nothing
 * of the host they do not need. A jail is a root of its own, the system
 * read-only and one writable folder, /work: no out/, no cache dir, no
 * home. It is built here as root (namespaces, pivot_root, an unprivileged
 * uid) or with bubblewrap. jailweak() says why a host cannot hide its
 * files, and the tools then refuse to run untrusted code; jailkind()
 * names the isolation for the records. It also starts the harness child
 * (descriptors 3-6) and owns the GPU leases. doc/verification.md (The
 * sandbox) gives the rules.
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
	uid_t uid;                 /* as root, the uid it runs as: runcapture and childstart set it (sandbox.c) */
	long diskmb;               /* >0 (runcapture): /work and /tmp a tmpfs of this many MiB, see below */
	const char *keep[4];       /* with diskmb: the files of work it writes for the caller (NULL ends) */
	int reportfd;              /* runcapture's: the socket the jail sends its tmpfs over (sandbox.c) */
	const char *cgroup;        /* its own cgroup (cgroup.h), or NULL: runcapture and childstart set it */
	long workmb;               /* >0 (runcapture, no diskmb): what it may write, MiB, see below */
};

/*
 * A jail's disk budget (diskmb, runcapture alone): its /work and /tmp are
 * one tmpfs of diskmb MiB, so that what it writes there, in all its files
 * together, never reaches the host's disk. The work folder's regular files
 * are bound into that /work read-only; those named in keep are made anew
 * (empty, its own) and bound read-write, so that they alone land in the
 * work folder, each no larger than filemb (RLIMIT_FSIZE). Everything else
 * it writes is gone with it. A jail that filled its tmpfs comes back with
 * r->diskfull set. Bubblewrap gets --size tmpfs mounts for /work and /tmp
 * (where it has --size), without diskfull.
 */
enum { JAIL_REF_DISKMB = 64 };     /* a reference's budget: its scratch, beside its outputs */
/*
 * A work area (workmb, runcapture alone, for programs whose outputs are not
 * known by name: nvcc and its -keep files): the work folder stays on the
 * host's disk, each file within filemb (RLIMIT_FSIZE), /tmp a tmpfs of
 * twice workmb MiB; once the work folder's growth and /tmp's use reach
 * workmb MiB together (looked at every 20 ms, and at the end), the jail is
 * killed and comes back with r->diskfull set. The harness child's /work and
 * /tmp are one tmpfs of JAIL_HARNESS_DISKMB (its output file alone on the
 * host), as a budget's are.
 */
enum { JAIL_HARNESS_DISKMB = 512 };

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
/* the Python environment venv at JAILVENV (j->venv its realpath,
 * malloc'd) and its interpreter's prefix read-only (jailaddpaths); -1
 * when venv has no bin/python */
int jailvenv(struct jail *j, const char *venv);
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
	int diskfull;              /* with a jail's diskmb or workmb: it wrote more than that many MiB */
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
	char cgroup[PATH_MAX];       /* its cgroup (cgroup.h), "" none: removed at childstop */
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
/* its descriptors closed and its shared memory unmapped, the process
 * left running for childstop to reap */
void childdetach(struct child *c);
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
 * exec, its shared memory's size and made bytes, its cgroup, its scratch folder) and
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
/* RETORT_GPU_LEASE=step: a scheduler gave this process its GPUs alone (a
 * Slurm step's gres, scripts/slurm-launch): its lease is theirs, no lock */
int stepleased(void);
int gpulockslot(const char *dir, int slot);
/* the slot's deck, DIR/gpu<slot>.deck, held (waiting for it): its fd.
 * The one edge on deck may make its harness's CUDA context before it
 * takes the lease, out of the room the lease holder's fence leaves
 * (proto.h hkeep); the others wait their turn for the deck */
int gpudeck(const char *dir, int slot);
int gpuslots(int ngpus);
void gpudevice(int slot, char *out, size_t cap);
/* the option rows (lib/opts.h) of a tool that leases a GPU: its slots,
 * their locks' folder and the seconds a call may take */
#define OPTS_GPU(gpus, lockdir, timeout) \
	{ "--gpus", "N", OPT_INT, gpus, 1, 1024, "GPU slots, one flock each in --lock-dir (default 1)" }, \
	{ "--lock-dir", "DIR", OPT_STR, lockdir, 0, 0, "the GPU slots' locks (default out/gpu)" }, \
	{ "--timeout", "S", OPT_INT, timeout, 1, 86400, "seconds per call (default 30)" }

#endif

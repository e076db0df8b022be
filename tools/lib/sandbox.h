/*
 * sandbox.h - run the per-variant harness on a candidate in the strongest
 * isolation the machine allows, and talk to it.
 *
 * With bubblewrap: new user, network, mount, PID, IPC and UTS namespaces,
 * a read-only view of /usr (and the driver's folder), a private /tmp,
 * only the GPU device nodes, a writable scratch folder and nothing else
 * (no out/, no cache, no home), an unprivileged uid, and an environment
 * of PATH, HOME (the scratch folder), LC_ALL and LD_LIBRARY_PATH alone.
 * Without it (a bare GPU host): when root, new network, mount and PID
 * namespaces (the PID one with its own /proc, which the CUDA driver needs:
 * skipped where the container refuses that mount), a read-only root but
 * /dev, /proc and /sys, private /tmp, /var/tmp and /dev/shm, and an
 * unprivileged uid; rlimits always. The isolation used is recorded.
 *
 * The child gets descriptors 3 (commands), 4 (replies) and 5 (shared
 * memory); its stdout and stderr go to a capped file whose tail is kept.
 */
#ifndef RETORT_SANDBOX_H
#define RETORT_SANDBOX_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	int cmdfd, repfd, shmfd, scratchfd;
	unsigned char *shm;
	size_t shmlen;
	char rbuf[8192];
	size_t rlen;
	char isolation[128];
	char scratch[PATH_MAX];
	int stopped;
	char tail[4096];             /* the end of its output, kept at stop */
};

/*
 * A child's life: childshm (its shared memory, which inputs can be
 * written to before a GPU is taken), childstart, commands, childstop.
 * childshm initializes *c. 0, or -1 with a message in err.
 */
int childshm(struct child *c, size_t shmbytes, char *err, size_t errlen);
/* start HARNESS on SO (entry point ENTRY, CUDA device DEVICE) */
int childstart(struct child *c, const char *harness, const char *so, const char *entry, int device,
               int seconds, char *err, size_t errlen);
/* the same, run under a wrapper program (compute-sanitizer and its options) */
int childstartwrapped(struct child *c, const char *const *wrapper, const char *harness, const char *so,
                      const char *entry, int device, int seconds, char *err, size_t errlen);
/* send one command line; -1 when the child is gone */
int childsend(struct child *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* read one reply line within seconds: 0 ok, -1 timeout, -2 the child closed it */
int childread(struct child *c, char *line, size_t cap, double seconds);
/* kill the child's whole process group, reap it; returns its wait status */
int childstop(struct child *c);
/* "killed by signal 11 (Segmentation fault)" etc. from a wait status */
void describestatus(int status, char *out, size_t cap);
/* the last bytes the child printed (stdout and stderr) */
void childoutput(struct child *c, char *out, size_t cap);

/* 1 when this machine shows an NVIDIA device node */
int hasgpu(void);

/*
 * Hold one of ngpus GPU slots (flock on DIR/gpu<i>.lock); returns the fd
 * and sets *device. Blocks until one is free.
 */
int gpulock(const char *dir, int ngpus, int *device);

#endif

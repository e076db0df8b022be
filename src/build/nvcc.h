/*
 * nvcc.h - running nvcc on untrusted source, and reading what it says.
 *
 * nvcc runs in the sandbox (sandbox.h): it sees the toolkit, the system's
 * compilers and headers and its own build folder (at /work), nothing of
 * out/, the cache dir or home, so a spelling trick that includes another
 * file finds nothing to quote into diagnostics. Its output is cut to what
 * the teacher should read: no ptxas chatter, no build folder's path, at
 * most 6000 bytes, valid UTF-8.
 */
#ifndef RETORT_NVCC_H
#define RETORT_NVCC_H

#include <jansson.h>

#include "../jail/sandbox.h"

enum { NVCC_MAX_LOG = 256 << 10, NVCC_MAX_DIAG = 6000 };

/* the toolkit's root, nvcc's folder's parent (malloc'd; /usr/local/cuda
 * when nvcc cannot be resolved) */
char *nvccroot(const char *nvcc);
/* "13.0 (cuda_13.0.r13.0/compiler.36424714_0)", or NULL with errno */
char *nvccversion(const char *nvcc);
/* the first line of cc --version: "cc (Debian 12.2.0-14) 12.2.0" (a build
 * cache key's part), or NULL with errno */
char *ccversion(const char *cc);
/* the option rows (lib/opts.h) of a tool that runs nvcc: which, for what GPU */
#define OPTS_NVCC(nvcc, arch) \
	{ "--nvcc", "PATH", OPT_STR, nvcc, 0, 0, "nvcc (default: nvcc)" }, \
	{ "--arch", "SM", OPT_STR, arch, 0, 0, "sm_90a, sm_90, sm_100a, ... (default sm_90a)" }
/* -arch=sm_90, or for arch-specific targets (sm_90a) the -gencode form (malloc'd) */
char *archflag(const char *arch);
/* run nvcc with args (after the program name) in dir, jailed, with a work
 * area of workmb MiB (sandbox.h); as runcapture, and -1 with ENOSPC when it
 * failed on a full disk (util nospace), -1 with ECANCELED when a signal
 * from outside stopped it (no verdict on the source). Past its work area
 * it failed (r->status not 0), its log one line: "nvcc wrote more than N
 * MiB ...: refused" */
enum { NVCC_WORK_MB = 256 };
int nvccrun(const char *nvcc, char *const args[], const char *dir, int seconds, long memmb, long workmb,
            struct run *r);
/* flags (space separated) split into args[0..n) (pointing into *copy, to
 * be freed), at most max of them: n */
int nvccflags(const char *flags, char **copy, char **args, int max);
/*
 * dir/file preprocessed as nvcc compiles it with flags (the build's, space
 * separated), twice: for the device (__CUDA_ARCH__ defined) into
 * dir/file.device.i and for the host (undefined) into dir/file.host.i, at
 * once, each with a work area of workmb MiB. 0 with both written, else r says why (the status and log of the
 * first that failed); -1 with errno when one could not run. (compile
 * screens the build's own preprocessed files, nvcc -keep's, and needs
 * these only when the build failed.)
 */
int nvccpreprocess(const char *nvcc, const char *flags, const char *dir, const char *file, int seconds, long memmb,
                   long workmb, struct run *r);
/* ptxas -v lines into per-kernel registers, shared memory, stack and spills */
json_t *nvccresources(const char *log);
/* nvcc's output for the teacher (malloc'd) */
char *nvccdiagnostics(const char *log, const char *dir);
/* the same trimming (paths, the cap, UTF-8) of a Python tool's output, every
 * line kept (Triton's errors quote indented source) (malloc'd) */
char *pydiagnostics(const char *log, const char *dir);

#endif

/*
 * lockdown.h - the harness's seccomp lockdown, once CUDA is initialised
 * and the shared object is loaded (x86-64 Linux).
 *
 * Every thread (CUDA's own included, SECCOMP_FILTER_FLAG_TSYNC): no new
 * processes (fork, vfork, clone without CLONE_THREAD, execve), no
 * sockets, no ptrace or process_vm_*, no memfd_create, userfaultfd, bpf,
 * perf_event_open, io_uring, mount, unshare, setns, keyrings or modules,
 * no mmap or mprotect that makes memory executable, no closing
 * (close, close_range) or dup2-ing onto descriptors 0-6 (the harness's), no sigaction on
 * SIGSYS (the handler that names refused calls). The main thread, where
 * the candidate's host code runs, besides: no threads at all (clone,
 * clone3), no open, openat or creat, no mprotect that makes memory
 * writable (the harness's GOT is read-only: -z relro -z now), no dup,
 * dup2, dup3, F_DUPFD or pipes.
 *
 * Every other thread has the every-thread rules alone: CUDA's, and the
 * harness's own that makes shareable device memory
 * (harness.c); bench ends the candidate's harness before its kept calls
 * are judged, so that nothing of it runs then.
 *
 * Not refused, so not promised: mmap with MAP_FIXED over a read-only page
 * (the CUDA driver maps fixed addresses during calls), mremap, shmat, and
 * descriptors other than files and pipes (eventfd, epoll, timerfd).
 *
 * A denied call fails with EPERM (clone3 with ENOSYS, so that glibc tries
 * clone). Calls the main thread made since lockdownreset are reported by
 * lockdownviolation, the first one named: the harness turns that into a
 * "violation lockdown" reply after a call.
 */
#ifndef RETORT_LOCKDOWN_H
#define RETORT_LOCKDOWN_H

#include <stddef.h>

/* lock the process down; status: "seccomp" or "none: why" */
void lockdown(char *status, size_t cap);
void lockdownreset(void);
/* 1 and the rule and what was denied when the main thread was refused a call */
int lockdownviolation(char *rule, size_t rcap, char *detail, size_t dcap);

#endif

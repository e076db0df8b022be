/*
 * lockdown.h - the harness's seccomp lockdown, once CUDA is initialised
 * and the shared object is loaded (x86-64 Linux): rules for every thread
 * (SECCOMP_FILTER_FLAG_TSYNC), and stricter ones for the main thread,
 * where the candidate's host code runs. A denied call fails with EPERM
 * (clone3 with ENOSYS, so that glibc tries clone). The calls the main
 * thread made since lockdownreset are reported by lockdownviolation, the
 * first one named: the harness turns that into a "violation lockdown"
 * reply. doc/verification.md (The lockdown) lists the rules.
 */
#ifndef RETORT_LOCKDOWN_H
#define RETORT_LOCKDOWN_H

#include <stddef.h>

/* every loaded object's RELRO pages read-only again (before lockdown,
 * where code has run before it) */
void lockrelro(void);
/* the status where the platform has no filter of ours (a Python
 * harness's parent takes any other "none" as the candidate's doing) */
#define LOCKDOWN_UNSUPPORTED "none: the seccomp filter is written for x86-64 Linux"

/* lock the process down; status: "seccomp" or "none: why" */
void lockdown(char *status, size_t cap);
void lockdownreset(void);
/* 1 and the rule and what was denied when the main thread was refused a call */
int lockdownviolation(char *rule, size_t rcap, char *detail, size_t dcap);

#endif

/*
 * cgroup.h - a cgroup of its own for each jail, so that the tasks one
 * jail holds count against its own pids.max and no other's: without it,
 * jails that share a uid (bubblewrap's, as a user who is not root) share
 * that uid's RLIMIT_NPROC, and one jail's 300 sleepers stop another's
 * compile. Where the cgroup2 memory controller is there too, a jail with
 * an address-space limit gets it as memory.max, for all its processes
 * together.
 *
 * The folder the jails' cgroups are made in (the base) is, the first that
 * passes a probe: RETORT_CGROUP (a delegated cgroup, writable by this
 * user; "none": no cgroup), this process's own cgroup2 cgroup where pids
 * is in its cgroup.subtree_control (the root's, as root), or this
 * process's cgroup in a v1 pids hierarchy that it may write (root on a
 * hybrid host). The probe makes a cgroup there, sees pids.max in it and
 * moves a throwaway child into it. A jail's cgroup is
 * BASE/retort-jail.PID@HOST:NS+N, made by the tool before it starts the
 * jail and removed, with everything still in it killed, once the jail has
 * ended; those of tools that were killed are removed by the next tool
 * that makes one (as tempsweep does for temporaries).
 *
 * FILES
 *     /proc/self/cgroup, /proc/self/mountinfo; BASE/retort-jail.*
 */
#ifndef RETORT_CGROUP_H
#define RETORT_CGROUP_H

#include <stddef.h>

enum { JAIL_PIDS = 512 };  /* pids.max of a jail's cgroup */

/* the base (above), probed once per process; NULL when there is none */
const char *jailcgbase(void);
/* what jails get here, in words (for jailkind): the base, or why none */
const char *jailcgkind(void);
/* a new cgroup for one jail (path, at most cap bytes): pids.max JAIL_PIDS,
 * memory.max memmb MiB where that controller is there and memmb > 0; 0,
 * 1 when there is no base ("" in path), -1 with errno */
int jailcgmake(char *path, size_t cap, long memmb);
/* in a forked child: move this process into the cgroup at path; 0 or -1
 * (no allocation: it runs between fork and exec) */
int jailcgenter(const char *path);
/* everything in the cgroup at path killed, the cgroup removed; 0, or -1
 * when it could not be removed within 2 s */
int jailcgdone(const char *path);

#endif

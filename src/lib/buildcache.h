/*
 * buildcache.h - the build cache: what a build made, kept under the key of
 * what went into it (its sources, flags and compiler, and the building
 * program itself, hashed by the caller), so that the same build in another
 * out/, or after an edit that does not touch it, costs a copy.
 *
 * An entry is the folder DIR/AREA/KE/KEY (KE: the key's first two hex
 * digits) of named files, published whole by rename: a reader sees all of
 * an entry or none of it, and when two processes publish one key the
 * first one's stays. An entry that cannot be written (a full disk) costs a
 * later build its hit, never this one its output: a warning. compile keeps
 * candidates' builds in AREA "build", prepare a variant's harness,
 * reference and baseline in "prep", verify --expected the reference's
 * outputs in "expected". See doc/verification.md.
 */
#ifndef RETORT_BUILDCACHE_H
#define RETORT_BUILDCACHE_H

#include <stddef.h>

#include "sha.h"

/* one file of an entry: its name there, the path it comes from (put) or
 * goes to (get), and whether the two may be one file (a hard link, where
 * the file system allows: large outputs, never rewritten in place; get's
 * path must then be a new name, to be renamed into place) */
struct cachefile {
	const char *name, *path;
	int link;
};

/* DIR/AREA/KE/KEY (malloc'd) */
char *cacheentry(const char *dir, const char *area, const char *key);
/* the entry's files to their paths (copied as util copyfile copies: atomic,
 * unchanged bytes left alone; or linked): 1 when the entry holds them all
 * and each got to its path, 0 when not (a miss) */
int cacheget(const char *dir, const char *area, const char *key, const struct cachefile *f, int n);
/* the files, all of them, as the entry of key (a warning when it cannot
 * be written) */
void cacheput(const char *dir, const char *area, const char *key, const struct cachefile *f, int n);
/* the running program's own bytes into a key: a new build of the tool
 * misses every entry the old one made */
void cacheself(struct sha *h);
/* bytes into a key with their length in front (so that fields cannot run
 * into each other): a file's (read whole; exit 1 when it cannot be), or
 * p[0..n) */
void cachekeyfile(struct sha *h, const char *path);
void cachekeydata(struct sha *h, const void *p, size_t n);

#endif

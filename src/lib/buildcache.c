/* buildcache.c - the build cache's entries (buildcache.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildcache.h"
#include "util.h"

char *
cacheentry(const char *dir, const char *area, const char *key)
{
	return xasprintf("%s/%s/%.2s/%s", dir, area, key, key);
}

/* from to to: a hard link where asked and allowed, else a copy made with
 * from's mode (an owner-only file stays one); 0 or -1 */
static int
carry(const char *from, const char *to, int link_)
{
	struct stat st;

	if (link_ && (unlink(to) == 0 || errno == ENOENT) && link(from, to) == 0)
		return 0;
	return stat(from, &st) < 0 ? -1 : copyfilemode(from, to, (int)(st.st_mode & 0777));
}

/* the entry holds every file (a power cut may have left one without some) */
static int
whole(const char *entry, const struct cachefile *f, int n)
{
	int i, ok = 1;

	for (i = 0; ok && i < n; i++) {
		char *p = xasprintf("%s/%s", entry, f[i].name);
		ok = access(p, F_OK) == 0;
		free(p);
	}
	return ok;
}

int
cacheget(const char *dir, const char *area, const char *key, const struct cachefile *f, int n)
{
	char *entry = cacheentry(dir, area, key);
	int i, hit = access(entry, F_OK) == 0;

	for (i = 0; hit && i < n; i++) {
		char *from = xasprintf("%s/%s", entry, f[i].name);
		hit = carry(from, f[i].path, f[i].link) == 0;
		free(from);
	}
	free(entry);
	return hit;
}

void
cacheput(const char *dir, const char *area, const char *key, const struct cachefile *f, int n)
{
	char *dst = cacheentry(dir, area, key), *tmp = tempname(dst, "tmp");
	int i, ok;

	tempsweep(dst, "tmp");
	rmtree(tmp); /* a dead process of our pid's, not swept */
	ok = mkdirp(tmp) == 0;
	for (i = 0; ok && i < n; i++) {
		char *to = xasprintf("%s/%s", tmp, f[i].name);
		ok = carry(f[i].path, to, f[i].link) == 0;
		free(to);
	}
	if (!ok) {
		warn("cannot write the build cache '%s' (the build stands; it is not cached):", tmp);
		rmtree(tmp);
		*strrchr(dst, '/') = 0; /* and the empty folders made for it (only empty ones go) */
		if (rmdir(dst) == 0 && strrchr(dst, '/')) {
			*strrchr(dst, '/') = 0;
			rmdir(dst);
		}
	} else if (rename(tmp, dst) < 0) {
		/* another's entry of this key stays; one that lacks a file is replaced */
		int replaced = (errno == ENOTEMPTY || errno == EEXIST) && !whole(dst, f, n) && rmtree(dst) == 0 &&
		               rename(tmp, dst) == 0;
		if (!replaced)
			rmtree(tmp);
	}
	free(dst);
	free(tmp);
}

void
cachekeyfile(struct sha *h, const char *path)
{
	struct buf b;

	bufinit(&b, (size_t)1 << 31);
	if (readfile(path, &b) < 0)
		die(EXIT_RETRY, "cannot read '%s':", path);
	cachekeydata(h, b.s, b.n);
	buffree(&b);
}

void
cachekeydata(struct sha *h, const void *p, size_t n)
{
	char len[32];

	snprintf(len, sizeof len, "%zu:", n);
	shaadd(h, len, strlen(len));
	shaadd(h, p, n);
}

void
cacheself(struct sha *h)
{
	static char hex[65];
	struct buf b;

	if (!hex[0]) {
		bufinit(&b, (size_t)1 << 30);
		if (readfile("/proc/self/exe", &b) < 0)
			die(EXIT_RETRY, "cannot read '/proc/self/exe':");
		sha256hex(b.s, b.n, hex);
		buffree(&b);
	}
	shaaddfield(h, hex);
}

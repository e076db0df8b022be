/* util.c - see util.h */
#include "util.h"
#include "parts.h"

#include <errno.h>
#include <fcntl.h>
#include <ctype.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *argv0 = "retort";

void
setprogname(const char *a)
{
	const char *slash;

	if (!a || !*a)
		return;
	slash = strrchr(a, '/');
	argv0 = slash ? slash + 1 : a;
}

void
vwarn(const char *fmt, va_list ap)
{
	size_t len = strlen(fmt);
	int err = errno;

	fprintf(stderr, "%s: ", argv0);
	vfprintf(stderr, fmt, ap);
	if (len && fmt[len - 1] == ':')
		fprintf(stderr, " %s", strerror(err));
	fputc('\n', stderr);
}

void
warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void
die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	if (status != 0)
		unmake();
	exit(status);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die(EXIT_RETRY, "out of memory allocating %zu bytes", n);
	return p;
}

void *
xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (!p)
		die(EXIT_RETRY, "out of memory allocating %zu x %zu bytes", n, m);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die(EXIT_RETRY, "out of memory allocating %zu bytes", n);
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t m)
{
	if (m && n > SIZE_MAX / m)
		die(EXIT_RETRY, "allocation overflow: %zu x %zu", n, m);
	return xrealloc(p, n * m);
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die(EXIT_RETRY, "vsnprintf failed");
	p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void
bufinit(struct buf *b, size_t max)
{
	b->cap = 64;
	b->s = xmalloc(b->cap);
	b->s[0] = 0;
	b->n = 0;
	b->max = max;
}

void
buffree(struct buf *b)
{
	free(b->s);
	b->s = NULL;
	b->n = b->cap = 0;
}

void
bufreset(struct buf *b)
{
	b->n = 0;
	b->s[0] = 0;
}

int
bufput(struct buf *b, const void *p, size_t n)
{
	size_t need;

	if (n > b->max || b->n > b->max - n)
		return -1;
	need = b->n + n + 1;
	if (need > b->cap) {
		size_t cap = b->cap;
		while (cap < need)
			cap = cap > SIZE_MAX / 2 ? need : cap * 2;
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
	if (n)
		memcpy(b->s + b->n, p, n);
	b->n += n;
	b->s[b->n] = 0;
	return 0;
}

int
bufputs(struct buf *b, const char *s)
{
	return bufput(b, s, strlen(s));
}

int
bufputc(struct buf *b, int c)
{
	char ch = (char)c;

	return bufput(b, &ch, 1);
}

int
bufprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	int n;
	int r;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n < sizeof small)
		return bufput(b, small, (size_t)n);
	{
		char *big = xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		r = bufput(b, big, (size_t)n);
		free(big);
	}
	return r;
}

char *
bufdetach(struct buf *b)
{
	char *s = b->s;

	b->s = NULL;
	b->n = b->cap = 0;
	return s;
}

int
readfile(const char *path, struct buf *b)
{
	return readfrom(path, 0, b);
}

int
readfrom(const char *path, off_t offset, struct buf *b)
{
	return readrange(path, offset, SIZE_MAX, b);
}

int
readrange(const char *path, off_t offset, size_t len, struct buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	size_t got = 0;
	char chunk[1 << 16];

	if (fd < 0)
		return -1;
	while (got < len) {
		size_t want = len - got < sizeof chunk ? len - got : sizeof chunk;
		/* a whole file by read (a pipe has no offsets), a range by pread */
		ssize_t r = !offset && len == SIZE_MAX ? read(fd, chunk, want) : pread(fd, chunk, want, offset + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 && len == SIZE_MAX)
			break;
		if (r <= 0 || bufput(b, chunk, (size_t)r) < 0) {
			err = r < 0 ? errno : r == 0 ? EIO : EFBIG;
			close(fd);
			errno = err;
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	return 0;
}

off_t
filesize(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

char *
filetail(const char *path, size_t max)
{
	off_t n = filesize(path);
	size_t take = n < 0 ? 0 : (size_t)n < max ? (size_t)n : max;
	struct buf b;

	bufinit(&b, max + 1);
	if (take && readrange(path, n - (off_t)take, take, &b) < 0)
		b.n = 0, b.s[0] = 0;
	return bufdetach(&b);
}

/* 1 when the files at a and b hold the same bytes */
static int
samefiles(const char *a, const char *b)
{
	int fa = open(a, O_RDONLY | O_CLOEXEC), fb = open(b, O_RDONLY | O_CLOEXEC), same = 0;
	struct stat sa, sb;
	static char ca[1 << 16], cb[1 << 16];

	if (fa >= 0 && fb >= 0 && fstat(fa, &sa) == 0 && fstat(fb, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    sa.st_size == sb.st_size) {
		ssize_t ra, rb;
		same = 1;
		while (same && (ra = read(fa, ca, sizeof ca)) > 0) {
			rb = read(fb, cb, (size_t)ra);
			same = rb == ra && !memcmp(ca, cb, (size_t)ra);
		}
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

int
samecontent(const char *path, const void *data, size_t n)
{
	struct stat st;
	char chunk[65536];
	const char *p = data;
	size_t off = 0;
	int fd, same = 1;
	ssize_t r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != n) {
		close(fd);
		return 0;
	}
	while (same && (r = read(fd, chunk, sizeof chunk)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			same = 0;
			break;
		}
		if (off + (size_t)r > n || memcmp(chunk, p + off, (size_t)r) != 0)
			same = 0;
		off += (size_t)r;
	}
	close(fd);
	return same && off == n;
}

static int
fsyncdir(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int fd, r = 0;

	if (slash == dir)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	else
		strcpy(dir, ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		/* some file systems refuse fsync on folders: not an error */
		if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
			r = -1;
		close(fd);
	}
	free(dir);
	return r;
}

static void sweeponce(const char *path);

/* writefilemode, and replacefile when not durable (no fsync) */
static int
writeatomic(const char *path, const void *data, size_t n, int mode, int durable)
{
	char *tmp;
	const char *p = data;
	size_t off = 0;
	int fd, err;
	ssize_t w;

	sweeponce(path);
	if (samecontent(path, data, n))
		return 0;
	if (mkparent(path) < 0)
		return -1;
	tmp = tempname(path, "tmp");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
	if (fd < 0) {
		err = errno;
		free(tmp);
		errno = err;
		return -1;
	}
	while (off < n) {
		w = write(fd, p + off, n - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (durable && fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	free(tmp);
	if (durable && fsyncdir(path) < 0)
		return -1;
	return 1;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = err;
	return -1;
}

int
writefilemode(const char *path, const void *data, size_t n, int mode)
{
	return writeatomic(path, data, n, mode, 1);
}

int
writefile(const char *path, const void *data, size_t n)
{
	return writeatomic(path, data, n, 0644, 1);
}

int
replacefile(const char *path, const void *data, size_t n)
{
	return writeatomic(path, data, n, 0644, 0);
}

const unsigned char *
mapfile(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	struct stat st;
	void *p;

	*len = 0;
	if (fd < 0)
		return NULL;
	err = fstat(fd, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : st.st_size == 0 ? ENODATA : 0;
	if (err) {
		close(fd);
		errno = err;
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = errno;
	close(fd);
	if (p == MAP_FAILED) {
		errno = err;
		return NULL;
	}
	*len = (size_t)st.st_size;
	touchpages(p, *len, 0);
	return p;
}

int
movefile(const char *tmp, const char *path)
{
	int fd, err;

	if (samefiles(tmp, path)) {
		unlink(tmp);
		return 0;
	}
	fd = open(tmp, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0 || fsyncdir(path) < 0) {
		err = errno;
		unlink(tmp);
		errno = err;
		return -1;
	}
	return 1;
}

static int
rmentry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

int
rmtree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	return nftw(path, rmentry, 16, FTW_DEPTH | FTW_PHYS);
}

double
diskfree(const char *path)
{
	char *p = xstrdup(path), *slash;
	struct statvfs v;
	int rc;

	while ((rc = statvfs(*p ? p : "/", &v)) < 0 && errno == ENOENT && (slash = strrchr(p, '/')))
		*slash = 0;
	if (rc < 0 && errno == ENOENT && !strchr(p, '/'))
		rc = statvfs(".", &v);
	free(p);
	if (rc < 0)
		return -1;
	return v.f_files > 0 && v.f_favail < 64 ? 0 : (double)v.f_bavail * (double)v.f_frsize; /* no inodes: full */
}

int
nospace(const char *path, double need)
{
	double fr = diskfree(path);

	return fr >= 0 && fr < (need > NOSPACE_MIN ? need : NOSPACE_MIN); /* unknown: the child's failure stands */
}

/* where pids mean what they mean here: this host's name and its pid
 * namespace (containers may share a host name, not their pids), as
 * temporaries carry it: HOST:NS ('-' for a host name that would not do) */
const char *
makerplace(void)
{
	static char place[320];
	char host[256] = "";
	struct stat st;

	if (place[0])
		return place;
	if (gethostname(host, sizeof host - 1) < 0 || !host[0] || strpbrk(host, "/+:"))
		strcpy(host, "-");
	snprintf(place, sizeof place, "%s:%lu", host, stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long)st.st_ino : 0ul);
	return place;
}

char *
tempname(const char *path, const char *kind)
{
	return xasprintf("%s.%s-%ld@%s", path, kind, (long)getpid(), makerplace());
}

/* pid has a thread besides its first (a leader thread that ended shows
 * as a zombie while the others run) */
static int
otherthreads(long pid)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int others = 0;

	snprintf(path, sizeof path, "/proc/%ld/task", pid);
	if ((d = opendir(path))) {
		while (!others && (e = readdir(d)))
			others = isdigit((unsigned char)e->d_name[0]) && atol(e->d_name) != pid;
		closedir(d);
	}
	return others;
}

/* pid is no running process here: none at all, or a zombie (killed, and
 * its parent gone to an init that does not reap, as in some containers)
 * with no thread left */
static int
pidgone(long pid)
{
	char path[64], buf[512], *rp;
	ssize_t n;
	int fd;

	if (kill((pid_t)pid, 0) < 0)
		return errno == ESRCH;
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	rp = strrchr(buf, ')'); /* the name may hold ") " itself */
	return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X') && !otherthreads(pid);
}

/* the maker of a temporary named for it (tail: what follows "KIND-"), if
 * it was made here (this host, this pid namespace); 0 when it was not */
static long
tempmaker(const char *tail)
{
	const char *place = makerplace();
	char *end;
	long pid = isdigit((unsigned char)*tail) ? strtol(tail, &end, 10) : 0;
	size_t n = strlen(place);

	if (pid <= 0 || pid > INT_MAX || *end != '@' || strncmp(end + 1, place, n))
		return 0;
	end += 1 + n;
	return *end == 0 || (*end == '+' && strlen(end) == 7) ? pid : 0;
}

/* where the maker begins in a temporary's name ("PID@HOST:NS" after
 * ".KIND-"), for kind (NULL: any kind), made here; NULL when it is none */
static const char *
makerin(const char *name, const char *kind)
{
	const char *p, *q;

	for (p = strchr(name, '.'); p; p = strchr(p + 1, '.')) {
		q = p + 1;
		if (kind && !strncmp(q, kind, strlen(kind)))
			q += strlen(kind);
		else if (!kind)
			while (islower((unsigned char)*q))
				q++;
		if (q > p + 1 && *q == '-' && tempmaker(q + 1))
			return q + 1;
	}
	return NULL;
}

/* the temporaries of kind (NULL: any) beside path whose maker is gone:
 * path's own, or (all) every file's in its folder */
static void
sweep(const char *path, const char *kind, int all)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *prefix;
	const char *base = slash ? slash + 1 : path;
	size_t n;
	struct dirent *e;
	DIR *d;

	if (slash)
		*slash = 0;
	prefix = all ? NULL : xasprintf("%s.%s-", base, kind);
	n = prefix ? strlen(prefix) : 0;
	if ((d = opendir(slash ? (*dir ? dir : "/") : "."))) {
		while ((e = readdir(d))) {
			const char *at = all ? makerin(e->d_name, kind) : strncmp(e->d_name, prefix, n) ? NULL : e->d_name + n;
			long pid = at ? tempmaker(at) : 0;
			if (pid && pid != (long)getpid() && pidgone(pid)) {
				char *stale = slash ? xasprintf("%s/%s", dir, e->d_name) : xstrdup(e->d_name);
				rmtree(stale);
				free(stale);
			}
		}
		closedir(d);
	}
	free(prefix);
	free(dir);
}

void
tempsweep(const char *path, const char *kind)
{
	sweep(path, kind, 0);
}

/* writefile's sweep: once per folder in a process, every file's leftovers
 * of every kind at once (a folder of many files, the response cache's, is
 * read once, not at every write), whether the write then changes the file
 * or not: a rerun edge whose output is already right still clears what
 * its killed run left */
static void
sweeponce(const char *path)
{
	static char *swept[64];
	static int nswept;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	int i;

	for (i = 0; i < nswept; i++)
		if (!strcmp(swept[i], dir)) {
			free(dir);
			return;
		}
	sweep(path, NULL, 1);
	if (nswept < 64)
		swept[nswept++] = dir;
	else
		free(dir);
}

char *
tempdir(const char *path, const char *kind)
{
	char *name = tempname(path, kind), *d;
	int err;

	tempsweep(path, kind);
	d = xasprintf("%s+XXXXXX", name); /* makerplace has no "+" */
	free(name);
	if (!mkdtemp(d)) {
		err = errno;
		free(d);
		errno = err;
		return NULL;
	}
	tempadd(d);
	return d;
}

/* one thread's share of touchpages */
struct touch {
	unsigned char *p;
	size_t n;
	int write;
};

static void *
touchpart(void *arg)
{
	struct touch *t = arg;
	volatile unsigned char sink = 0;
	size_t i;

	if (t->write)
		memset(t->p, 0, t->n);
	else
		for (i = 0; i < t->n; i += 4096)
			sink ^= t->p[i];
	(void)sink;
	return NULL;
}

void
touchpages(void *p, size_t n, int write)
{
	struct touch t[PARTS_MAX];
	int k, parts = partsfor(n, (size_t)64 << 20, PARTS_MAX);
	size_t per = ((n / (size_t)parts) + 4095) & ~(size_t)4095;

	for (k = 0; k < parts; k++) {
		size_t a = (size_t)k * per < n ? (size_t)k * per : n;
		t[k].p = (unsigned char *)p + a;
		t[k].n = k == parts - 1 ? n - a : (a + per < n ? per : n - a);
		t[k].write = write;
	}
	runparts(touchpart, t, sizeof t[0], parts);
}

/* what an exit removes: temporaries a failed tool must not leave behind */
enum { MAXTEMPS = 16 };
static char *temps[MAXTEMPS];

static void
cleantemps(void)
{
	for (int i = 0; i < MAXTEMPS; i++)
		if (temps[i]) {
			rmtree(temps[i]);
			free(temps[i]);
			temps[i] = NULL;
		}
}

void
tempadd(const char *path)
{
	static int registered;
	int i;

	if (!registered && atexit(cleantemps) == 0)
		registered = 1;
	for (i = 0; i < MAXTEMPS && temps[i]; i++)
		;
	if (i == MAXTEMPS) /* a failure would leave it behind: a tool that needs more is wrong */
		die(EXIT_RETRY, "more than %d temporaries: '%s'", MAXTEMPS, path);
	temps[i] = xstrdup(path);
}

void
tempkeep(const char *path)
{
	for (int i = 0; i < MAXTEMPS; i++)
		if (temps[i] && !strcmp(temps[i], path)) {
			free(temps[i]);
			temps[i] = NULL;
		}
}

void
tempdone(const char *path)
{
	tempkeep(path);
	rmtree(path); /* listed or not */
}

int
copytemp(const char *from, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, r = -1;
	struct stat st;
	off_t left;

	if (in < 0 || fstat(in, &st) < 0 || (out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)) < 0)
		goto done;
	for (left = st.st_size; left > 0;) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);
		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
			char buf[1 << 16]; /* across file systems some kernels refuse: plain reads */
			n = read(in, buf, sizeof buf);
			if (n > 0 && write(out, buf, (size_t)n) != n)
				n = -1;
		}
		if (n <= 0)
			goto done;
		left -= n;
	}
	r = fchmod(out, mode);
done:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0)
		r = -1;
	return r;
}

int
copyfilemode(const char *from, const char *to, int mode)
{
	struct buf b;
	int r;

	bufinit(&b, (size_t)1 << 31);
	r = readfile(from, &b) < 0 ? -1 : writefilemode(to, b.s, b.n, mode);
	buffree(&b);
	return r < 0 ? -1 : 0;
}

int
copyfile(const char *from, const char *to)
{
	return copyfilemode(from, to, 0644);
}

/* the folders mkdirp made in this process, for unmake (the first MADE_MAX) */
enum { MADE_MAX = 64 };
static char *made[MADE_MAX];
static int nmade;

/* mkdir of p, noted when it made it */
static int
mkdirnoted(const char *p)
{
	if (mkdir(p, 0755) < 0)
		return -1;
	if (nmade < MADE_MAX)
		made[nmade++] = xstrdup(p);
	return 0;
}

void
unmake(void)
{
	while (nmade > 0) {
		rmdir(made[--nmade]); /* an empty one only: what others wrote there stays */
		free(made[nmade]);
	}
}

int
mkdirp(const char *path)
{
	char *p;
	char *s;
	struct stat st;

	if (!*path) {
		errno = ENOENT;
		return -1;
	}
	/* the folder is there already: one call (a request's cache folders
	 * are made once and written in thousands of times) */
	if (mkdirnoted(path) == 0 || (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		return 0;
	if (errno != ENOENT && errno != EEXIST)
		return -1;
	p = xstrdup(path);
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdirnoted(p) < 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	if (mkdirnoted(p) < 0 && errno != EEXIST) {
		free(p);
		return -1;
	}
	if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(p);
		errno = ENOTDIR;
		return -1;
	}
	free(p);
	return 0;
}

int
mkparent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int r;

	if (!slash || slash == path)
		return 0;
	dir = xstrndup(path, (size_t)(slash - path));
	r = mkdirp(dir);
	free(dir);
	return r;
}

int
endswith(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

static double
seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double
now(void)
{
	return seconds(CLOCK_MONOTONIC);
}

double
wallclock(void)
{
	return seconds(CLOCK_REALTIME);
}

char *
sibling(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');

	return slash ? xasprintf("%.*s/%s", (int)(slash - path), path, name) : xstrdup(name);
}

char *
findprog(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *d;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	copy = xstrdup(path ? path : "/usr/bin:/bin");
	for (d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", d, name);
		if (access(p, X_OK) == 0) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	return NULL;
}

char *
absolute(const char *p)
{
	char *here, *a;

	if (p[0] == '/')
		return xstrdup(p);
	here = realpath(".", NULL);
	a = xasprintf("%s/%s", here ? here : ".", p);
	free(here);
	return a;
}

int
ownergone(const char *name)
{
	const char *at = strchr(name, '@');
	long pid = atol(name);

	if (!at || strcmp(at + 1, makerplace()) || pid <= 0)
		return 0; /* another host's or container's, or no process's: cannot tell */
	return pidgone(pid);
}

void
ownername(char *dst, size_t cap)
{
	snprintf(dst, cap, "%ld@%s", (long)getpid(), makerplace());
}

/* an exclusive flock on DIR/NAME (waiting for it); returns the fd, or -1 (err says why) */
int
lockfile(const char *dir, const char *name, char *err, size_t cap)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		snprintf(err, cap, "cannot lock '%s': %s", p, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	free(p);
	return fd;
}

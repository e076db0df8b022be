/*
 * util.h - what every retort tool needs: error reporting with the
 * exit-code convention (EXIT_OK 0 written, EXIT_RETRY 1 infrastructure,
 * EXIT_USAGE 2 bad usage or input; doc/hacking.md), allocation that
 * cannot fail silently, capped growable buffers, whole-file reads and
 * atomic, change-only writes. Messages go to stderr as "tool: what
 * failed: 'operand'"; a format that ends in ':' gets ": strerror(errno)"
 * appended.
 */
#ifndef RETORT_UTIL_H
#define RETORT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { EXIT_OK = 0, EXIT_RETRY = 1, EXIT_USAGE = 2 };
/* rounds per sample: gen allows up to this many, record and report keep them all */
enum { MAX_ROUNDS = 50 };

extern const char *argv0;

void setprogname(const char *argv0_in);
#if defined(__GNUC__)
#define PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))
#define NORETURN __attribute__((noreturn))
#else
#define PRINTF_LIKE(a, b)
#define NORETURN
#endif

/* print "argv0: msg" and exit with status */
NORETURN void die(int status, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* print "argv0: msg" */
void warn(const char *fmt, ...) PRINTF_LIKE(1, 2);
void vwarn(const char *fmt, va_list ap);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
/* realloc(p, n * m) with an overflow check */
void *xreallocarray(void *p, size_t n, size_t m);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);

/*
 * A growable byte buffer with a mandatory cap (as curl's dynbuf): appends
 * past the cap fail and leave the buffer unchanged. s is always
 * NUL-terminated and never NULL after bufinit.
 */
struct buf {
	char *s;
	size_t n, cap, max;
};
void bufinit(struct buf *b, size_t max);
void buffree(struct buf *b);
void bufreset(struct buf *b);
int bufput(struct buf *b, const void *p, size_t n);   /* 0 or -1 over cap */
int bufputs(struct buf *b, const char *s);
int bufputc(struct buf *b, int c);
int bufprintf(struct buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* take ownership of the contents; the buffer is left freed */
char *bufdetach(struct buf *b);

/*
 * Read a whole file into b (appending), or with readfrom its bytes from
 * offset on. Returns 0, or -1 with errno set; EFBIG when that is more
 * than the buffer's cap.
 */
int readfile(const char *path, struct buf *b);
int readfrom(const char *path, off_t offset, struct buf *b);
/* exactly len bytes from offset (a short file is EIO; SIZE_MAX: to the end) */
int readrange(const char *path, off_t offset, size_t len, struct buf *b);
/* a file's size, or -1 when it cannot be looked at */
off_t filesize(const char *path);
/* its last bytes (up to max), as a string (malloc'd; "" when unreadable) */
char *filetail(const char *path, size_t max);

/*
 * Write data to path atomically: a temporary file in the same folder,
 * fsync, rename, fsync of the folder. When the file already holds exactly
 * these bytes nothing is written (rules use restat).
 * Returns 1 written, 0 unchanged, -1 error (errno set).
 */
int writefile(const char *path, const void *data, size_t n);
/* writefile, a new file made with mode (writefile's: 0644) */
int writefilemode(const char *path, const void *data, size_t n, int mode);
/* writefile without the fsyncs: whole (the old bytes or the new) to every
 * reader and across a kill, as the rename is; a crash of the machine or a
 * power loss may undo it, or leave the file empty where the file system
 * does not write a file renamed over another first. For state that a
 * crash may set back (query-llm's budget and limiter: src/ask/llm.h) */
int replacefile(const char *path, const void *data, size_t n);
/* path mapped read-only, whole, its pages read in (touchpages: where verify
 * reads expected.bin, before it takes the GPU, so that its comparisons
 * wait on no disk and fault no page); *len its size; NULL with errno when
 * it cannot be, or is empty; munmap when done */
const unsigned char *mapfile(const char *path, size_t *len);
/* 1 when path holds exactly data[0..n) (what writefile leaves alone) */
int samecontent(const char *path, const void *data, size_t n);
/* from's bytes into to as writefile writes them (atomic, unchanged bytes
 * left alone; up to 2 GiB); 0, or -1 with errno */
int copyfile(const char *from, const char *to);
/* copyfile, a new file made with mode (copyfile's: 0644) */
int copyfilemode(const char *from, const char *to, int mode);
/* from into a new file to (mode) in a folder that is thrown away: kernel
 * to kernel, no fsync (a scratch copy, made with the GPU held); 0 or -1 */
int copytemp(const char *from, const char *to, mode_t mode);
/* the same for a finished temporary file in path's folder: renamed into
 * place, or removed when path already holds its bytes; 1, 0, -1 */
int movefile(const char *tmp, const char *path);
/* rm -rf */
int rmtree(const char *path);
/* every page of p[0..n) made present, on all CPUs (parts.h, 64 MiB a
 * part at least): written with zeros (write), else read */
void touchpages(void *p, size_t n, int write);

/* temporaries removed at exit (die() included) unless tempdone removes them first
 * (tempdone removes path, whether it was added or not) */
void tempadd(const char *path);
void tempdone(const char *path);
/*
 * Temporaries that outlive a SIGKILL are named for their maker:
 * tempname gives PATH.KIND-PID@HOST:NS (a file or folder beside PATH;
 * NS the pid namespace), and tempsweep, called before a tool makes its
 * own, removes those beside PATH of that KIND whose process is gone from
 * here (another host's or container's, on a shared folder, are left
 * alone; writefile sweeps a folder's ones of every kind once per process, at its
 * first write there, whichever file they were for). tempdir sweeps, then
 * makes the
 * folder PATH.KIND-PID@HOST:NS+XXXXXX and adds it to the temporaries (NULL
 * with errno).
 */
char *tempname(const char *path, const char *kind);
/* HOST:NS, where a pid means what it means here (see above; the owners
 * of query-llm's reservations and batches are PID@HOST:NS too) */
const char *makerplace(void);
/* this process's name for the files it owns: PID@HOST:NS (query-llm's charges, batches, the status) */
void ownername(char *dst, size_t cap);
/* 1 when the owner PID@HOST:NS is a process of this host and pid namespace that is gone */
int ownergone(const char *name);
/* an exclusive flock on DIR/NAME (waiting for it); the fd, or -1 (err says why) */
int lockfile(const char *dir, const char *name, char *err, size_t cap);
/* path, listed by tempadd, is finished output: no longer removed at exit */
void tempkeep(const char *path);
void tempsweep(const char *path, const char *kind);
char *tempdir(const char *path, const char *kind);

/*
 * A full disk is the host's failure, never the candidate's or the spec's:
 * nospace says whether the file system holding path (or its nearest
 * existing folder) has less than need bytes, or NOSPACE_MIN, free, or
 * almost no inodes; a tool whose child failed asks it before blaming the
 * child.
 */
enum { NOSPACE_MIN = 32 << 20 };
int nospace(const char *path, double need);
/* the bytes free to us there (0 without inodes), -1 when it cannot tell */
double diskfree(const char *path);

/* path's folder joined with name */
char *sibling(const char *path, const char *name);
/*
 * mkdir -p of path's parent folder (or of path itself with mkdirp). The
 * folders they make are noted: unmake removes those still empty (newest
 * first), and die() with a status other than 0 calls it, so a tool that
 * fails (a full disk) leaves no empty folders behind.
 */
int mkparent(const char *path);
int mkdirp(const char *path);
void unmake(void);

/* the path of program name on PATH (malloc'd), or NULL; a name with a '/'
 * is taken as it is when executable */
char *findprog(const char *name);

/* 1 when s ends with suffix */
int endswith(const char *s, const char *suffix);
/* seconds: a monotonic clock (durations), and the wall clock (times kept in files) */
double now(void);
double wallclock(void);

/* p from the current folder, when it is not absolute (malloc'd) */
char *absolute(const char *p);

#endif

/* yaml.h - gen's diagnostics and the YAML tree (yaml.c) */
#ifndef RETORT_YAML_H
#define RETORT_YAML_H

#include <stdarg.h>
#include <stddef.h>

/* diagnostics: "file:line:col: message", deduplicated, capped
 * (line 0: "file: message"; file NULL: "gen: message", for what is no
 * fault of the file, as a read error) */

void diag(const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void vdiag(const char *file, int line, int col, const char *fmt, va_list ap);
int diagcount(void);
/* set: each message goes there instead of stderr (propose-check records them) */
extern void (*diagsink)(const char *msg);
void diagreset(void); /* forget earlier messages (tests) */
/* the closest of the NULL-terminated names to s (at most two edits, a swap
 * of neighbours counting as one), or NULL: for "did you mean" */
const char *closest(const char *s, const char *const *names);


enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ykind kind;
	int line, col;        /* 1-based start of the node */
	int quoted;           /* scalar written quoted or as a block: always a string */
	char *s;              /* scalar text (NUL-terminated); NULL for SEQ and MAP */
	size_t len;
	struct ynode **kid;   /* SEQ: items; MAP: key, value, key, value, ... */
	size_t n;             /* number of entries in kid */
	size_t weight;        /* nodes below, with aliases expanded */
};

struct ydoc {
	const char *path;
	struct ynode *root;
	struct ynode **all;   /* every node, for freeing */
	size_t nall, capall;
};

/* limits that keep a spec from exploding the generator */
enum {
	YAML_MAX_BYTES = 1 << 20,        /* one spec file */
	YAML_MAX_NODES = 100000,         /* nodes after alias expansion */
	YAML_MAX_COPIED = 16 << 20,      /* bytes of text aliases to scalars copy */
	YAML_MAX_DEPTH = 64,
};

/* parse data (from path) into doc; 0, or -1 after diagnostics with doc
 * empty (yfree'd) */
int yload(const char *path, const char *data, size_t len, struct ydoc *doc);
/* read path and parse it into doc; 0 or -1 after diagnostics */
int yloadfile(const char *path, struct ydoc *doc);
void yfree(struct ydoc *doc);
/* value of key in a MAP node, or NULL */
struct ynode *yget(const struct ynode *map, const char *key);
const char *ykindname(enum ykind k);

#endif

/*
 * gen.h - the generator's parts: diagnostics, the YAML tree (yaml.c), the
 * expression language (expr.c), task specs and their variants (spec.c).
 * gen.c holds main() and writes the Ninja graph.
 */
#ifndef RETORT_GEN_H
#define RETORT_GEN_H

#include <stdarg.h>
#include <stddef.h>

#include <jansson.h>

/* ---- diagnostics: "file:line:col: message", deduplicated, capped ----
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

/* ---- YAML tree (yaml.c) ---- */

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

/* parse data (from path) into doc; 0 or -1 after diagnostics */
int yload(const char *path, const char *data, size_t len, struct ydoc *doc);
/* read path and parse it into doc; 0 or -1 after diagnostics */
int yloadfile(const char *path, struct ydoc *doc);
void yfree(struct ydoc *doc);
/* value of key in a MAP node, or NULL */
struct ynode *yget(const struct ynode *map, const char *key);
const char *ykindname(enum ykind k);

/* ---- expressions (expr.c) ---- */

/*
 * Arithmetic over named parameters: numbers, identifiers, + - * / %,
 * parentheses, and the functions min, max, ceil_div, pow, sqrt, log2,
 * numel(tensor), nbytes(tensor).
 */
struct expr;

/* how identifiers and tensor functions get their values */
struct scope {
	/* 0 found, -1 unknown */
	int (*lookup)(void *ctx, const char *name, double *v);
	/* fn is "numel" or "nbytes"; 0 found, -1 unknown tensor */
	int (*tensor)(void *ctx, const char *fn, const char *name, double *v);
	void *ctx;
};

/* NULL on error, with a message in err and the byte offset in *errpos */
struct expr *exprparse(const char *s, char *err, size_t errlen, int *errpos);
/* 0 ok, -1 with a message in err */
int expreval(const struct expr *e, const struct scope *sc, double *v,
             char *err, size_t errlen);
void exprfree(struct expr *e);

/* ---- specs and variants (spec.c) ---- */

struct variant {
	char *id;             /* e.g. softmax.f16.cols4096 */
	char *spec;           /* spec id */
	char *file;           /* spec file */
	char **tags;
	size_t ntags;
	char *prompt;         /* template name under tasks/prompts */
	int samples, rounds;  /* 0 = the configured default */
	int hasref;           /* the spec has a CPU reference */
	int pyref;            /* in Python */
	int teacherref;       /* reference: teacher (the teacher writes it: gen/propose.c) */
	int hasbaseline;      /* and a GPU baseline */
	int pybaseline;       /* in Python (baseline.py, not baseline.so) */
	int proposed;         /* origin source teacher: a proposal propose-accept accepted */
	int held;             /* gen: a proposal whose baseline disagreed (OUT/propose/baselines.json): checks only */
	int langs;            /* the spec's lang: (round.h's LANG_ bits), 0: configure's --lang */
	int selected;         /* by --all or --tasks (gen sets it once) */
	json_t *json;         /* the resolved variant: out/v/<id>/task.json */
};

struct specfile {
	char *path;
	int idline, idcol;    /* where the spec's id is */
	struct variant *v;
	size_t nv;
};

enum {
	MATRIX_MAX_VARIANTS = 20000,   /* per spec */
	VARIANT_ID_MAX = 200,          /* characters: ids name folders under out/v */
	TOTAL_MAX_VARIANTS = 200000,   /* per build */
};

/*
 * Parse and validate one spec file and expand its matrix. Returns 0, or -1
 * after printing diagnostics; sf is filled either way (possibly empty).
 */
int specload(const char *path, struct specfile *sf);
/* folder of prompt templates, checked when set (tasks/prompts) */
extern const char *specpromptdir;
/* 0: drop each variant's JSON once validated (saves memory when unused) */
extern int speckeepjson;
void specfree(struct specfile *sf);
/* text with each {KEY} of a variant's matrix assignment ({KEY: VALUE},
 * its task.json's "matrix") replaced by VALUE, as specload does a spec's
 * strings (malloc'd); NULL when it grows too large */
char *specsubst(const char *text, json_t *matrix);

/* 1 when the variant is selected by the comma-separated globs */
int variantmatch(const struct variant *v, const char *globs);

/* ---- models.yaml (models.c) ---- */

/*
 * Validate the models file and resolve the first entry of provider whose
 * key (a glob) matches model, defaults merged. A model no key matches is
 * accepted for anthropic (ids claude-...) and openai: the defaults alone,
 * without "prices", with "listed": false, and *note (malloc'd) says so;
 * *note is NULL for a listed model. 0 or -1 after diagnostics.
 */
int modelresolve(const char *path, const char *provider, const char *model, json_t **out,
                 char **note);

/* ---- the curriculum (curriculum.c): families of proposed problems ---- */

enum { CURRICULUM_MAX_PROBLEMS = 200000 };

struct family {
	char *name, *covers, *difficulty;
	char *vendor;    /* the vendor routine its baselines call, or NULL */
	int count, batch, nbatches;
	char **dtypes, **sizes, **exemplars, **angles; /* NULL-terminated */
	size_t ndtypes, nsizes, nexemplars, nangles;
	int line, col;
};

struct curriculum {
	char *path;
	int batch, rounds;
	struct family *f;
	size_t nf, total;
};

/* parse and check the curriculum at path (exemplars under tasksdir); 0 or -1 after diagnostics */
int curriculumload(const char *path, const char *tasksdir, struct curriculum *cu);
void curriculumfree(struct curriculum *cu);
/* batch k's distinct angle (malloc'd) */
char *curriculumangle(const struct family *f, int k);

/* ---- the proposal graph (propose.c) ---- */

struct buf;
/* each batch's request task.json; the exit status */
int proposesplit(const char *curriculum, const char *tasksdir, const char *outdir, const char *readme);
/* the proposal edges into b (corpus: the hand-written spec files, NULL-terminated; batch: each stage's
 * requests through a batch edge); 0 or -1 after diagnostics */
/* the edges that ask the teacher for the references of the specs (NULL-terminated) with
 * reference: teacher, compare them and complete the specs (OUT/teacherref/) */
void teacherrefedges(struct buf *b, char *const *specs, const char *tasksdir, const char *outdir, int batch);
int proposeedges(struct buf *b, const char *curriculum, const char *tasksdir, const char *outdir, const char *readme,
                 char *const *corpus, int batch);

#endif

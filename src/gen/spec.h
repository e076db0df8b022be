/* spec.h - task specs and their variants (spec.c) */
#ifndef RETORT_SPEC_H
#define RETORT_SPEC_H

#include <stddef.h>

#include <jansson.h>


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
	int teacherref;       /* reference: teacher (the teacher writes it: src/gen/propose.c) */
	int hasbaseline;      /* and a GPU baseline */
	int pybaseline;       /* in Python (baseline.py, not baseline.so) */
	int proposed;         /* origin source teacher: a proposal propose-accept accepted */
	int held;             /* gen: a proposal whose baseline disagreed (OUT/propose/baselines.json): checks only */
	int langs;            /* the spec's lang: (round.h's LANG_ bits), 0: configure's --lang */
	int selected;         /* by --all or --tasks (gen sets it once) */
	json_t *json;         /* the resolved variant: out/v/<id>/task.json (NULL: not kept, speckeeps) */
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
/*
 * The variants whose JSON (v->json) is kept: NULL, every one; else those
 * it returns 1 for, asked once each is resolved. Only a kept one gets its
 * hidden cases and pool drawn (hidden.h), the costly part of resolving a
 * variant; the others are validated as fully, their JSON then dropped.
 */
extern int (*speckeeps)(const struct variant *v);
void specfree(struct specfile *sf);
/* text with each {KEY} of a variant's matrix assignment ({KEY: VALUE},
 * its task.json's "matrix") replaced by VALUE, as specload does a spec's
 * strings (malloc'd); NULL when it grows too large */
char *specsubst(const char *text, json_t *matrix);

/* 1 when the variant is selected by the comma-separated globs */
int variantmatch(const struct variant *v, const char *globs);
/* a spec file that failed to load, as far as it can be read: its id (else
 * the file's name without .yaml) as spec and id, its tags, for selecting
 * it; specnamesfree frees them */
void specnames(const char *path, struct variant *v);
void specnamesfree(struct variant *v);
/* 1 when the globs would select such a spec: its id, a tag, or a glob
 * over variant ids whose part before the first '.' names its id */
int specnamed(const struct variant *v, const char *globs);

#endif

/*
 * json.h - deterministic JSON through jansson: every file retort writes is
 * dumped with sorted keys, so the same data always gives the same bytes.
 */
#ifndef RETORT_JSON_H
#define RETORT_JSON_H

#include <jansson.h>

/* flags for files under out/ (readable) and for JSONL lines (compact) */
#define JFLAGS_FILE (JSON_SORT_KEYS | JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15))
#define JFLAGS_LINE (JSON_SORT_KEYS | JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15))

/*
 * Load a JSON file. On failure returns NULL and writes a message into err:
 * "cannot read 'path': strerror" (a folder too: "Is a directory") or, for
 * bad JSON, "path:line:col: text".
 */
json_t *jload(const char *path, char *err, size_t errlen);
/* the same, dying (exit 2: bad input) with that message */
json_t *jmustload(const char *path);

/* JSON text from a provider (an answer, a stream's data line, a batch's
 * result line), or NULL: a string holding U+0000, which jansson refuses
 * by default and C strings end at, is taken with each NUL as U+FFFD */
json_t *jloadwire(const char *s, size_t n);

/* dump j with JFLAGS_FILE plus a final newline; same return as writefile */
int jwrite(const char *path, const json_t *j);
/* text (JSON already dumped) plus a final newline, as jwrite writes it */
int jwritetext(const char *path, const char *text);
/* jwrite through replacefile (util.h): atomic, not durable */
int jreplace(const char *path, const json_t *j);

/* dump j into a new string with flags, byte for byte as jansson's
 * json_dumps would, faster (never NULL: dies where json_dumps fails) */
char *jdumps(const json_t *j, size_t flags);

/* typed getters: the fallback when the key is absent or of another type */
const char *jstr(const json_t *o, const char *key, const char *fallback);
json_int_t jint(const json_t *o, const char *key, json_int_t fallback);
double jnum(const json_t *o, const char *key, double fallback);
/* 1 when the array a holds the string s */
int jhas(const json_t *a, const char *s);
int jbool(const json_t *o, const char *key, int fallback);

/* a JSON number; NaN and Inf, which JSON lacks, as strings */
json_t *jsonnum(double v);

#endif

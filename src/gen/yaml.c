/*
 * yaml.c - libyaml's event stream turned into a small tree that keeps each
 * node's position, plus the diagnostics every generator part uses.
 *
 * Strictness: one document per file, UTF-8 only (libyaml rejects bad
 * octets), no duplicate keys, only scalar keys, no tags, aliases only to
 * complete anchored nodes and within a node budget and a budget of the
 * text they copy (a "billion laughs" file is refused, not expanded),
 * nesting depth capped. A document that
 * breaks a rule does not load, so in a loaded one every key has its text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "../lib/util.h"
#include "yaml.h"

/* ---- diagnostics ---- */

enum { DIAG_MAX = 20 };

static int ndiag;
static char *seen[DIAG_MAX];
void (*diagsink)(const char *msg);

void
diag(const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(file, line, col, fmt, ap);
	va_end(ap);
}

void
vdiag(const char *file, int line, int col, const char *fmt, va_list ap)
{
	char msg[1024], full[1400];
	int i;

	vsnprintf(msg, sizeof msg, fmt, ap);
	if (!file)
		snprintf(full, sizeof full, "%s: %s", argv0, msg);
	else if (line > 0)
		snprintf(full, sizeof full, "%s:%d:%d: %s", file, line, col, msg);
	else
		snprintf(full, sizeof full, "%s: %s", file, msg);
	for (i = 0; i < ndiag && i < DIAG_MAX; i++)
		if (strcmp(seen[i], full) == 0)
			return;
	if (ndiag < DIAG_MAX) {
		seen[ndiag] = xstrdup(full);
		if (diagsink)
			diagsink(full);
		else
			fprintf(stderr, "%s\n", full);
	} else if (ndiag == DIAG_MAX) {
		fprintf(stderr, "%s: too many errors, stopping\n", file ? file : argv0);
	}
	ndiag++;
}

int
diagcount(void)
{
	return ndiag;
}

void
diagreset(void)
{
	int i;

	for (i = 0; i < ndiag && i < DIAG_MAX; i++)
		free(seen[i]);
	ndiag = 0;
}

static int
levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int d[64][64];

	if (la >= 64 || lb >= 64)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
			int m = sub < del ? sub : del;
			d[i][j] = m < ins ? m : ins;
			/* a swap of two neighbours counts as one edit */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	return d[la][lb];
}

const char *
closest(const char *s, const char *const *names)
{
	const char *best = NULL;
	int bestd = 3;

	for (; *names; names++) {
		int d = levenshtein(s, *names);
		if (d < bestd) {
			bestd = d;
			best = *names;
		}
	}
	return best;
}

/* ---- tree ---- */

struct anchor {
	char *name;
	struct ynode *node; /* NULL until the anchored node is complete */
};

struct loader {
	struct ydoc *doc;
	yaml_parser_t p;
	struct anchor *anchors;
	size_t nanchors;
	size_t nodes; /* running total with aliases expanded */
	size_t copied; /* bytes of text copied for aliases to scalars */
	const char *data;
	size_t len;
	int failed;
};

const char *
ykindname(enum ykind k)
{
	switch (k) {
	case Y_SCALAR: return "a scalar";
	case Y_SEQ: return "a list";
	case Y_MAP: return "a mapping";
	}
	return "?";
}

static struct ynode *
newnode(struct ydoc *doc, enum ykind kind, yaml_mark_t m)
{
	struct ynode *n = xcalloc(1, sizeof *n);

	n->kind = kind;
	n->line = (int)m.line + 1;
	n->col = (int)m.column + 1;
	n->weight = 1;
	if (doc->nall == doc->capall) {
		doc->capall = doc->capall ? doc->capall * 2 : 64;
		doc->all = xreallocarray(doc->all, doc->capall, sizeof *doc->all);
	}
	doc->all[doc->nall++] = n;
	return n;
}

static void
addkid(struct ynode *parent, struct ynode *kid)
{
	parent->kid = xreallocarray(parent->kid, parent->n + 1, sizeof *parent->kid);
	parent->kid[parent->n++] = kid;
	parent->weight += kid->weight;
}

static int
parsererror(struct loader *L)
{
	yaml_parser_t *p = &L->p;
	yaml_mark_t m = p->problem_mark;
	const char *what = p->problem ? p->problem : "malformed YAML";

	if (p->error == YAML_READER_ERROR) {
		/* the reader knows only the byte offset: count lines ourselves */
		int line = 1, col = 1;
		size_t i;
		for (i = 0; i < p->problem_offset && i < L->len; i++) {
			if (L->data[i] == '\n')
				line++, col = 1;
			else if (((unsigned char)L->data[i] & 0xC0) != 0x80)
				col++;
		}
		diag(L->doc->path, line, col, "not valid UTF-8 text: %s (byte %zu)",
		     what, p->problem_offset);
	} else
		diag(L->doc->path, (int)m.line + 1, (int)m.column + 1, "%s%s%s",
		     p->context ? p->context : "", p->context ? ": " : "", what);
	L->failed = 1;
	return -1;
}

static int
nextevent(struct loader *L, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&L->p, ev))
		return parsererror(L);
	return 0;
}

static void
setanchor(struct loader *L, const yaml_char_t *name, struct ynode *n)
{
	size_t i;

	for (i = 0; i < L->nanchors; i++)
		if (strcmp(L->anchors[i].name, (const char *)name) == 0) {
			L->anchors[i].node = n; /* a redefined anchor: later wins */
			return;
		}
	L->anchors = xreallocarray(L->anchors, L->nanchors + 1, sizeof *L->anchors);
	L->anchors[L->nanchors].name = xstrdup((const char *)name);
	L->anchors[L->nanchors].node = n;
	L->nanchors++;
}

static int
checkbudget(struct loader *L, size_t add, yaml_mark_t m)
{
	L->nodes += add;
	if (L->nodes > YAML_MAX_NODES) {
		diag(L->doc->path, (int)m.line + 1, (int)m.column + 1,
		     "document too large: more than %d nodes once aliases are expanded",
		     YAML_MAX_NODES);
		L->failed = 1;
		return -1;
	}
	return 0;
}

static int
hastag(struct loader *L, const yaml_char_t *tag, int implicit, yaml_mark_t m)
{
	if (tag && !implicit) {
		diag(L->doc->path, (int)m.line + 1, (int)m.column + 1,
		     "YAML tags are not allowed: '%s'", (const char *)tag);
		L->failed = 1;
		return 1;
	}
	return 0;
}

/* a scalar reached through an alias, as a node of its own at m */
static struct ynode *
copyscalar(struct ydoc *doc, const struct ynode *src, yaml_mark_t m)
{
	struct ynode *n = newnode(doc, Y_SCALAR, m);

	n->len = src->len;
	n->s = xstrndup(src->s, src->len);
	n->quoted = src->quoted;
	return n;
}

/*
 * k, at m, is the next key of map: a scalar, and not one map has already.
 * A refused key stays in the tree (the loader fails at the end), so the
 * comparison skips earlier keys that are not scalars: they have no text.
 */
static void
checkkey(struct loader *L, const struct ynode *map, const struct ynode *k, yaml_mark_t m)
{
	size_t i;

	if (k->kind != Y_SCALAR) {
		diag(L->doc->path, (int)m.line + 1, (int)m.column + 1,
		     "mapping keys must be plain names, not %s", ykindname(k->kind));
		L->failed = 1;
		return;
	}
	for (i = 0; i < map->n; i += 2)
		if (map->kid[i]->kind == Y_SCALAR && strcmp(map->kid[i]->s, k->s) == 0) {
			diag(L->doc->path, k->line, k->col, "duplicate key '%s' (first at line %d)",
			     k->s, map->kid[i]->line);
			L->failed = 1;
		}
}

/* a node refused: the loader fails and ev is consumed; -1 */
static int
refuse(struct loader *L, yaml_event_t *ev)
{
	L->failed = 1;
	yaml_event_delete(ev);
	return -1;
}

/* the node an alias event names (a scalar copied to the alias's place); ev is consumed */
static int
parsealias(struct loader *L, yaml_event_t *ev, struct ynode **out)
{
	struct ynode *n = NULL;
	size_t i;

	for (i = 0; i < L->nanchors; i++)
		if (strcmp(L->anchors[i].name, (const char *)ev->data.alias.anchor) == 0)
			n = L->anchors[i].node;
	if (!n) {
		diag(L->doc->path, (int)ev->start_mark.line + 1,
		     (int)ev->start_mark.column + 1,
		     "alias '*%s' names no complete anchor",
		     (const char *)ev->data.alias.anchor);
		return refuse(L, ev);
	}
	if (checkbudget(L, n->weight, ev->start_mark) < 0) {
		yaml_event_delete(ev);
		return -1;
	}
	if (n->kind == Y_SCALAR && (L->copied += n->len) > YAML_MAX_COPIED) {
		diag(L->doc->path, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
		     "document too large: aliases copy more than %d MiB of text", YAML_MAX_COPIED >> 20);
		return refuse(L, ev);
	}
	if (n->kind == Y_SCALAR) /* a copy where the alias is: messages point there */
		n = copyscalar(L->doc, n, ev->start_mark);
	yaml_event_delete(ev);
	*out = n;
	return 0;
}

/* a scalar event's node (its anchor set); ev is consumed */
static int
parsescalar(struct loader *L, yaml_event_t *ev, struct ynode **out)
{
	struct ynode *n;
	yaml_char_t *anchor;

	if (hastag(L, ev->data.scalar.tag,
	           ev->data.scalar.plain_implicit || ev->data.scalar.quoted_implicit,
	           ev->start_mark))
		return refuse(L, ev);
	n = newnode(L->doc, Y_SCALAR, ev->start_mark);
	n->len = ev->data.scalar.length;
	n->s = xstrndup((const char *)ev->data.scalar.value, n->len);
	n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
	if (memchr(n->s, 0, n->len)) {
		diag(L->doc->path, n->line, n->col, "NUL character in a string");
		L->failed = 1;
	}
	anchor = ev->data.scalar.anchor;
	if (checkbudget(L, 1, ev->start_mark) < 0)
		return refuse(L, ev);
	if (anchor)
		setanchor(L, anchor, n);
	yaml_event_delete(ev);
	*out = n;
	return 0;
}

static int parsenode(struct loader *L, yaml_event_t *ev, int depth, struct ynode **out);

/* a list or a mapping that ev starts, read to its end (its anchor set); ev is consumed */
static int
parsecollection(struct loader *L, yaml_event_t *ev, int depth, struct ynode **out)
{
	int ismap = ev->type == YAML_MAPPING_START_EVENT;
	yaml_event_type_t end = ismap ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
	yaml_mark_t mark = ev->start_mark;
	yaml_char_t *anchor;
	yaml_event_t kid;
	struct ynode *n;

	if (hastag(L, ismap ? ev->data.mapping_start.tag : ev->data.sequence_start.tag,
	           ismap ? ev->data.mapping_start.implicit : ev->data.sequence_start.implicit,
	           ev->start_mark))
		return refuse(L, ev);
	n = newnode(L->doc, ismap ? Y_MAP : Y_SEQ, ev->start_mark);
	anchor = ismap ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
	if (anchor)
		anchor = (yaml_char_t *)xstrdup((const char *)anchor);
	yaml_event_delete(ev);
	if (checkbudget(L, 1, mark) < 0) {
		free(anchor);
		return -1;
	}
	for (;;) {
		struct ynode *k;
		yaml_mark_t at;

		if (nextevent(L, &kid) < 0) {
			free(anchor);
			return -1;
		}
		if (kid.type == end) {
			yaml_event_delete(&kid);
			break;
		}
		at = kid.start_mark; /* an alias's own place, not its anchor's */
		if (parsenode(L, &kid, depth + 1, &k) < 0) {
			free(anchor);
			return -1;
		}
		if (ismap && n->n % 2 == 0)
			checkkey(L, n, k, at);
		addkid(n, k);
	}
	if (anchor) {
		setanchor(L, anchor, n);
		free(anchor);
	}
	*out = n;
	return 0;
}

/* parse the node that ev starts; *out gets it. ev is consumed. */
static int
parsenode(struct loader *L, yaml_event_t *ev, int depth, struct ynode **out)
{
	*out = NULL;
	if (depth > YAML_MAX_DEPTH) {
		diag(L->doc->path, (int)ev->start_mark.line + 1,
		     (int)ev->start_mark.column + 1, "nesting deeper than %d levels",
		     YAML_MAX_DEPTH);
		return refuse(L, ev);
	}
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return parsealias(L, ev, out);
	case YAML_SCALAR_EVENT:
		return parsescalar(L, ev, out);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		return parsecollection(L, ev, depth, out);
	default:
		diag(L->doc->path, (int)ev->start_mark.line + 1,
		     (int)ev->start_mark.column + 1, "unexpected YAML event");
		return refuse(L, ev);
	}
}

int
yloadfile(const char *path, struct ydoc *doc)
{
	struct buf data;
	int r = -1;

	memset(doc, 0, sizeof *doc);
	bufinit(&data, YAML_MAX_BYTES + 1);
	if (readfile(path, &data) == 0)
		r = yload(path, data.s, data.n, doc);
	else if (errno == EFBIG)
		diag(path, 0, 0, "file too large (at most %d bytes)", YAML_MAX_BYTES);
	else
		diag(NULL, 0, 0, "cannot read '%s': %s", path, strerror(errno));
	buffree(&data);
	return r;
}

int
yload(const char *path, const char *data, size_t len, struct ydoc *doc)
{
	struct loader L;
	yaml_event_t ev;
	size_t i;
	int r = -1;

	memset(doc, 0, sizeof *doc);
	doc->path = path;
	if (len > YAML_MAX_BYTES) {
		diag(path, 0, 0, "file too large (at most %d bytes)", YAML_MAX_BYTES);
		return -1;
	}
	memset(&L, 0, sizeof L);
	L.doc = doc;
	L.data = data;
	L.len = len;
	if (!yaml_parser_initialize(&L.p))
		die(EXIT_RETRY, "libyaml: cannot initialize parser");
	yaml_parser_set_encoding(&L.p, YAML_UTF8_ENCODING);
	yaml_parser_set_input_string(&L.p, (const unsigned char *)data, len);

	if (nextevent(&L, &ev) < 0) /* stream start */
		goto out;
	yaml_event_delete(&ev);
	if (nextevent(&L, &ev) < 0)
		goto out;
	if (ev.type == YAML_STREAM_END_EVENT) {
		diag(path, 0, 0, "empty file: no YAML document");
		yaml_event_delete(&ev);
		goto out;
	}
	yaml_event_delete(&ev); /* document start */
	if (nextevent(&L, &ev) < 0)
		goto out;
	if (parsenode(&L, &ev, 0, &doc->root) < 0)
		goto out;
	if (nextevent(&L, &ev) < 0) /* document end */
		goto out;
	yaml_event_delete(&ev);
	if (nextevent(&L, &ev) < 0)
		goto out;
	if (ev.type != YAML_STREAM_END_EVENT) {
		diag(path, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
		     "one YAML document per file");
		yaml_event_delete(&ev);
		goto out;
	}
	yaml_event_delete(&ev);
	r = L.failed ? -1 : 0;
out:
	for (i = 0; i < L.nanchors; i++)
		free(L.anchors[i].name);
	free(L.anchors);
	yaml_parser_delete(&L.p);
	if (r < 0) /* what was made before the failure: no caller need free it */
		yfree(doc);
	return r;
}

void
yfree(struct ydoc *doc)
{
	size_t i;

	for (i = 0; i < doc->nall; i++) {
		free(doc->all[i]->s);
		free(doc->all[i]->kid);
		free(doc->all[i]);
	}
	free(doc->all);
	memset(doc, 0, sizeof *doc);
}

struct ynode *
yget(const struct ynode *map, const char *key)
{
	size_t i;

	if (!map || map->kind != Y_MAP)
		return NULL;
	for (i = 0; i + 1 < map->n; i += 2)
		if (map->kid[i]->kind == Y_SCALAR && strcmp(map->kid[i]->s, key) == 0)
			return map->kid[i + 1];
	return NULL;
}

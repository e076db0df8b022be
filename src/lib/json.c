/* json.c - see json.h */
#include "json.h"

#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

json_t *
jload(const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *j;
	struct stat st;
	FILE *f = fopen(path, "rb");
	int e;

	if (!f) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(EISDIR));
		errno = EISDIR;
		return NULL;
	}
	errno = 0;
	j = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	e = errno;
	if (!j && ferror(f))
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(e ? e : EIO));
	else if (!j && je.line > 0)
		snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	else if (!j)
		snprintf(err, errlen, "%s: %s", path, je.text);
	fclose(f);
	errno = e;
	return j;
}

json_t *
jmustload(const char *path)
{
	char err[1024];
	json_t *j = jload(path, err, sizeof err);

	if (!j)
		die(EXIT_USAGE, "%s", err);
	return j;
}

/*
 * jansson's json_dumps, byte for byte (t-util holds it to that on random
 * trees, every flag retort uses), at a tenth of its cost: jansson decodes
 * every character of a string as UTF-8 and writes runs through a callback,
 * and a request's five dumps of its prompt took half a millisecond of
 * query-llm's 3.3 (bench/llm-start.sh). What it does not handle
 * (JSON_EMBED, a tree deeper than DUMP_DEPTH: a loop, which jansson
 * refuses; a string that is not UTF-8) goes to json_dumps.
 */
enum { DUMP_DEPTH = 512 };

/* the length of the UTF-8 sequence at p (at most end), its code point in
 * *cp; 0 for what utf8_check_full refuses (stray, overlong, surrogate,
 * past U+10FFFF, cut short) */
static size_t
utf8len(const unsigned char *p, const unsigned char *end, unsigned *cp)
{
	size_t n = *p < 0x80 ? 1 : *p < 0xC2 ? 0 : *p < 0xE0 ? 2 : *p < 0xF0 ? 3 : *p < 0xF5 ? 4 : 0;
	unsigned v = n == 1 ? *p : n == 2 ? *p & 0x1F : n == 3 ? *p & 0x0F : *p & 0x07;

	if (!n || (size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3F);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF)
		return 0;
	*cp = v;
	return n;
}

static void
dumpu(struct buf *b, unsigned v)
{
	static const char hex[] = "0123456789ABCDEF";
	char e[6] = { '\\', 'u', hex[v >> 12 & 15], hex[v >> 8 & 15], hex[v >> 4 & 15], hex[v & 15] };

	bufput(b, e, 6);
}

/* a string as jansson's dump_string writes it; -1: not UTF-8 */
static int
dumpstring(struct buf *b, const char *s, size_t n, size_t flags)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n, *run = p;
	int ascii = (flags & JSON_ENSURE_ASCII) != 0, slash = (flags & JSON_ESCAPE_SLASH) != 0;

	bufputc(b, '"');
	while (p < end) {
		unsigned c = *p, cp;
		size_t len;
		const char *e;
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && (c != '/' || !slash)) {
			p++;
			continue;
		}
		if (c >= 0x80) {
			if (!(len = utf8len(p, end, &cp)))
				return -1;
			if (!ascii) {
				p += len;
				continue;
			}
		}
		bufput(b, run, (size_t)(p - run));
		switch (c) {
		case '\\': e = "\\\\"; break;
		case '"': e = "\\\""; break;
		case '\b': e = "\\b"; break;
		case '\f': e = "\\f"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		case '/': e = "\\/"; break;
		default: e = NULL;
		}
		if (e) {
			bufput(b, e, 2);
			p++;
		} else if (c < 0x80) {
			dumpu(b, c);
			p++;
		} else {
			if (cp < 0x10000) {
				dumpu(b, cp);
			} else {
				dumpu(b, 0xD800 | ((cp - 0x10000) >> 10));
				dumpu(b, 0xDC00 | ((cp - 0x10000) & 0x3FF));
			}
			p += len;
		}
		run = p;
	}
	bufput(b, run, (size_t)(p - run));
	bufputc(b, '"');
	return 0;
}

/* jansson's jsonp_dtostr: %.*g, ".0" where it reads as an integer, no '+'
 * or leading zeros in the exponent */
static void
dumpreal(struct buf *b, double v, int precision)
{
	char s[100], *e, *from;
	int n = snprintf(s, sizeof s - 3, "%.*g", precision ? precision : 17, v);

	if (!strchr(s, '.') && !strchr(s, 'e')) {
		memcpy(s + n, ".0", 3);
		n += 2;
	}
	if ((e = strchr(s, 'e'))) {
		e++;
		from = e + 1;
		if (*e == '-')
			e++;
		while (*from == '0')
			from++;
		memmove(e, from, strlen(from) + 1);
		n = (int)strlen(s);
	}
	bufput(b, s, (size_t)n);
}

/* a newline and depth x indent spaces, or (between items) a space, as jansson's dump_indent */
static void
dumpindent(struct buf *b, size_t flags, int depth, int space)
{
	size_t ind = flags & 0x1F;

	if (ind) {
		bufputc(b, '\n');
		for (size_t k = 0; k < ind * (size_t)depth; k++)
			bufputc(b, ' ');
	} else if (space && !(flags & JSON_COMPACT)) {
		bufputc(b, ' ');
	}
}

struct dumpkey {
	const char *key;
	size_t len;
	json_t *value;
};

static int
dumpkeycmp(const void *x, const void *y)
{
	const struct dumpkey *a = x, *b = y;
	int r = memcmp(a->key, b->key, a->len < b->len ? a->len : b->len);

	return r ? r : (int)a->len - (int)b->len;
}

/* j as jansson's do_dump writes it; -1 for what only json_dumps should try */
static int
dumptree(struct buf *b, const json_t *j, size_t flags, int depth)
{
	char num[64];
	size_t i, n;

	if (depth > DUMP_DEPTH)
		return -1;
	switch (json_typeof(j)) {
	case JSON_NULL: bufputs(b, "null"); return 0;
	case JSON_TRUE: bufputs(b, "true"); return 0;
	case JSON_FALSE: bufputs(b, "false"); return 0;
	case JSON_INTEGER:
		bufput(b, num, (size_t)snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(j)));
		return 0;
	case JSON_REAL:
		dumpreal(b, json_real_value(j), (int)(flags >> 11 & 0x1F));
		return 0;
	case JSON_STRING:
		return dumpstring(b, json_string_value(j), json_string_length(j), flags);
	case JSON_ARRAY:
		n = json_array_size(j);
		bufputc(b, '[');
		if (n)
			dumpindent(b, flags, depth + 1, 0);
		for (i = 0; i < n; i++) {
			if (dumptree(b, json_array_get(j, i), flags, depth + 1) < 0)
				return -1;
			if (i < n - 1)
				bufputc(b, ','), dumpindent(b, flags, depth + 1, 1);
			else
				dumpindent(b, flags, depth, 0);
		}
		bufputc(b, ']');
		return 0;
	case JSON_OBJECT: {
		struct dumpkey *k;
		void *it;
		int r = 0;
		n = json_object_size(j);
		bufputc(b, '{');
		if (!n) {
			bufputc(b, '}');
			return 0;
		}
		k = xreallocarray(NULL, n, sizeof *k);
		for (i = 0, it = json_object_iter((json_t *)j); it && i < n; i++, it = json_object_iter_next((json_t *)j, it))
			k[i] = (struct dumpkey){ json_object_iter_key(it), json_object_iter_key_len(it), json_object_iter_value(it) };
		if (flags & JSON_SORT_KEYS)
			qsort(k, n, sizeof *k, dumpkeycmp);
		dumpindent(b, flags, depth + 1, 0);
		for (i = 0; i < n && r == 0; i++) {
			r = dumpstring(b, k[i].key, k[i].len, flags);
			bufputs(b, flags & JSON_COMPACT ? ":" : ": ");
			if (r == 0)
				r = dumptree(b, k[i].value, flags, depth + 1);
			if (i < n - 1)
				bufputc(b, ','), dumpindent(b, flags, depth + 1, 1);
			else
				dumpindent(b, flags, depth, 0);
		}
		free(k);
		bufputc(b, '}');
		return r;
	}
	default:
		return -1;
	}
}

char *
jdumps(const json_t *j, size_t flags)
{
	struct buf b;
	char *s;

	if (j && !(flags & JSON_EMBED) && (json_is_object(j) || json_is_array(j) || (flags & JSON_ENCODE_ANY))) {
		bufinit(&b, SIZE_MAX / 2);
		if (dumptree(&b, j, flags, 0) == 0)
			return bufdetach(&b);
		buffree(&b);
	}
	if (!(s = json_dumps(j, flags)))
		die(EXIT_RETRY, "cannot encode JSON (out of memory?)");
	return s;
}

/* text and a final newline to path through put (writefile, replacefile) */
static int
puttext(const char *path, const char *text, int (*put)(const char *, const void *, size_t))
{
	size_t n = strlen(text);
	char *s = xmalloc(n + 2);
	int r;

	memcpy(s, text, n);
	s[n++] = '\n';
	s[n] = 0;
	r = put(path, s, n);
	free(s);
	return r;
}

int
jwritetext(const char *path, const char *text)
{
	return puttext(path, text, writefile);
}

int
jwrite(const char *path, const json_t *j)
{
	char *s = jdumps(j, JFLAGS_FILE);
	int r = puttext(path, s, writefile);

	free(s);
	return r;
}

int
jreplace(const char *path, const json_t *j)
{
	char *s = jdumps(j, JFLAGS_FILE);
	int r = puttext(path, s, replacefile);

	free(s);
	return r;
}

const char *
jstr(const json_t *o, const char *key, const char *fallback)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : fallback;
}

json_int_t
jint(const json_t *o, const char *key, json_int_t fallback)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : fallback;
}

double
jnum(const json_t *o, const char *key, double fallback)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : fallback;
}

int
jhas(const json_t *a, const char *s)
{
	const json_t *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

int
jbool(const json_t *o, const char *key, int fallback)
{
	json_t *v = json_object_get(o, key);

	return json_is_boolean(v) ? json_is_true(v) : fallback;
}

json_t *
jsonnum(double v)
{
	if (isfinite(v))
		return json_real(v);
	return json_string(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

/* a string holding NUL bytes as a new one, each NUL as U+FFFD; NULL when it holds none */
static json_t *
nulstring(const json_t *v)
{
	const char *p = json_string_value(v);
	size_t n = json_string_length(v), i, k = 0;
	char *t;
	json_t *r;

	if (!json_is_string(v) || !memchr(p, 0, n))
		return NULL;
	t = xmalloc(3 * n + 1);
	for (i = 0; i < n; i++)
		if (p[i])
			t[k++] = p[i];
		else
			memcpy(t + k, "\xEF\xBF\xBD", 3), k += 3;
	r = json_stringn(t, k);
	free(t);
	return r;
}

/* j's strings with NUL bytes (JSON_ALLOW_NUL's) replaced by nulstring's */
static void
nulfree(json_t *j)
{
	const char *k;
	json_t *v, *r;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach(j, k, v) {
			if ((r = nulstring(v)))
				json_object_set_new(j, k, r);
			else
				nulfree(v);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			if ((r = nulstring(v)))
				json_array_set_new(j, i, r);
			else
				nulfree(v);
		}
	}
}

json_t *
jloadwire(const char *s, size_t n)
{
	json_t *j = json_loadb(s, n, JSON_ALLOW_NUL, NULL), *r;

	if ((r = nulstring(j))) {
		json_decref(j);
		return r;
	}
	nulfree(j);
	return j;
}

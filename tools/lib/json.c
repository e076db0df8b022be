/* json.c - see json.h */
#include "json.h"

#include <errno.h>
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

char *
jdumps(const json_t *j, size_t flags)
{
	char *s = json_dumps(j, flags);

	if (!s)
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

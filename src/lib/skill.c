/* skill.c - see skill.h */
#include "skill.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char mark[] = "<!-- retort-skill sources:";

/* the sources line's names (line: after the mark, up to "-->") */
static int
sources(struct skill *s, const char *line, size_t len, const char *path, char *err, size_t errlen)
{
	char *names = xstrndup(line, len), *end = strstr(names, "-->"), *tok, *save = NULL;

	if (!end) {
		snprintf(err, errlen, "%s:1: the sources line does not end in '-->'", path);
		free(names);
		return -1;
	}
	*end = 0;
	for (tok = strtok_r(names, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		s->sources = xreallocarray(s->sources, s->nsources + 2, sizeof *s->sources);
		s->sources[s->nsources++] = xstrdup(tok);
	}
	free(names);
	return 0;
}

int
skillload(const char *path, struct skill *s, char *err, size_t errlen)
{
	struct buf b;
	const char *body;

	memset(s, 0, sizeof *s);
	s->sources = xcalloc(1, sizeof *s->sources);
	bufinit(&b, SKILL_MAX);
	if (readfile(path, &b) < 0) {
		snprintf(err, errlen, "cannot read the skill '%s': %s", path,
		         errno == EFBIG ? "more than 1 MiB" : strerror(errno));
		buffree(&b);
		return -1;
	}
	if (memchr(b.s, 0, b.n)) {
		snprintf(err, errlen, "the skill '%s' is not text (a NUL byte)", path);
		buffree(&b);
		return -1;
	}
	body = b.s;
	if (!strncmp(b.s, mark, sizeof mark - 1)) {
		const char *nl = strchr(b.s, '\n');
		size_t len = nl ? (size_t)(nl - b.s) : b.n;
		if (sources(s, b.s + sizeof mark - 1, len - (sizeof mark - 1), path, err, errlen) < 0) {
			buffree(&b);
			skillfree(s);
			return -1;
		}
		body = nl ? nl + 1 : b.s + b.n;
	}
	s->sources[s->nsources] = NULL;
	s->text = xstrdup(body);
	buffree(&b);
	return 0;
}

int
skillfrom(const struct skill *s, const char *task)
{
	size_t i;

	for (i = 0; i < s->nsources; i++)
		if (!strcmp(s->sources[i], task))
			return 1;
	return 0;
}

void
skillfree(struct skill *s)
{
	size_t i;

	for (i = 0; s->sources && i < s->nsources; i++)
		free(s->sources[i]);
	free(s->sources);
	free(s->text);
	memset(s, 0, sizeof *s);
}

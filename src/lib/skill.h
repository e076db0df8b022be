/*
 * skill.h - a skill file (SKILL.md): a concise guide a student model gets
 * in its system prompt for an evaluation (configure --eval --skill=FILE).
 * Its first line may name the tasks it was distilled from:
 *
 *	<!-- retort-skill sources: relu row_max -->
 *
 * (spec ids, space-separated; an HTML comment, so the Markdown reads the
 * same). gen refuses to evaluate a skill on a task it names; the rest of
 * the file, after that line, is the guide query-llm puts in the prompt.
 */
#ifndef RETORT_SKILL_H
#define RETORT_SKILL_H

#include <stddef.h>

enum { SKILL_MAX = 1 << 20 };

struct skill {
	char *text;      /* the guide, without the sources line */
	char **sources;  /* the tasks it was made from, NULL-terminated (none: v[0] NULL) */
	size_t nsources;
};

/* load path (UTF-8 text, at most SKILL_MAX bytes); 0, or -1 with the message in err */
int skillload(const char *path, struct skill *s, char *err, size_t errlen);
/* 1 when task is one of the skill's sources */
int skillfrom(const struct skill *s, const char *task);
void skillfree(struct skill *s);

#endif

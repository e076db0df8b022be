/* curriculum.h - the curriculum: families of proposed problems (curriculum.c) */
#ifndef RETORT_CURRICULUM_H
#define RETORT_CURRICULUM_H

#include <stddef.h>


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

#endif

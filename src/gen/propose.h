/* propose.h - the proposal graph (propose.c) */
#ifndef RETORT_PROPOSE_H
#define RETORT_PROPOSE_H

struct buf;

/* each batch's request task.json; the exit status */
int proposesplit(const char *curriculum, const char *tasksdir, const char *outdir, const char *readme);
/* the edges that ask the teacher for the references of the specs (NULL-terminated) with
 * reference: teacher, compare them and complete the specs (OUT/teacherref/) */
void teacherrefedges(struct buf *b, char *const *specs, const char *tasksdir, const char *outdir, int batch);
/* the proposal edges into b (corpus: the hand-written spec files, NULL-terminated; batch: each stage's
 * requests through a batch edge); 0 or -1 after diagnostics */
int proposeedges(struct buf *b, const char *curriculum, const char *tasksdir, const char *outdir, const char *readme,
                 char *const *corpus, int batch);

#endif

/*
 * hidden.h - a variant's hidden cases: sizes the prompt does not list,
 * drawn from the domain its listed cases imply.
 *
 * hiddencases(q) infers each size arg's domain from q's listed cases
 * (verify and bench): a size with one value in all of them is fixed; one
 * that varies ranges from its least to its largest listed value, in
 * multiples of their greatest common divisor. Every relation that holds
 * between two sizes in every listed case (a <= b, a divides b) holds in
 * every hidden case; where b / a took few values (at most 4, and at
 * most one for every two cases), only those. From that domain it draws,
 * with a seed from the variant's id:
 *
 *   - residue cases: small shapes whose free sizes take every residue
 *     mod 16 (of their multiple), none a multiple of 64;
 *   - degenerate cases: each free size at 1, 2 and 3 where its domain
 *     reaches them;
 *   - a medium shape (about an eighth of the first bench case's elements)
 *     and a large one just below the bench case, every free size ragged.
 *
 * The small ones (residue and degenerate) go into *pool: a slot per
 * residue, then per small size while fewer than 24, up to HIDDEN_POOL
 * distinct alternatives in each, every case carrying its "slot". verify
 * picks one alternative a slot per candidate, seeded by the cache's
 * secret and the candidate's hash (doc/verification.md). The medium and
 * large ones are returned: every candidate of the variant runs them.
 *
 * Each is evaluated by q->eval, which returns the case object or NULL
 * when the sizes fall outside the spec (a shape that is not a positive
 * integer, a cap); such draws are dropped. Returns the cases as an array
 * (possibly empty), the pool's in *pool (possibly empty).
 * doc/specs.md (hidden cases) says the same for users.
 */
#ifndef RETORT_HIDDEN_H
#define RETORT_HIDDEN_H

#include <stddef.h>

#include <jansson.h>

struct hiddenask {
	const char *vid;              /* the variant: its id seeds the draw */
	const char *const *names;     /* the size args, in the spec's order */
	size_t n;
	json_t *verify, *bench;       /* the listed cases, as gen evaluated them */
	/* the case object of these sizes (names' order), NULL when it is out
	 * of the spec or its tensors take more than maxbytes */
	json_t *(*eval)(void *ctx, const double *sizes, double maxbytes);
	void *ctx;
};

enum { HIDDEN_POOL = 4 };

json_t *hiddencases(const struct hiddenask *q, json_t **pool);

#endif

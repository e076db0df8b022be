/* models.h - models.yaml (models.c) */
#ifndef RETORT_MODELS_H
#define RETORT_MODELS_H

#include <jansson.h>


/*
 * Validate the models file and resolve the first entry of provider whose
 * key (a glob) matches model, defaults merged. A model no key matches is
 * accepted for anthropic (ids claude-...) and openai: the defaults alone,
 * without "prices", with "listed": false, and *note (malloc'd) says so;
 * it says so too of a listed entry without prices (replay's aside), and
 * is NULL otherwise. A price table's cache_write and cache_read default
 * to its input. 0 or -1 after diagnostics.
 */
/*
 * A resolved model (modelresolve's out) priced at in and out USD per
 * million tokens (configure --price-in, --price-out): cache writes and
 * reads at in, batches at the same prices, "prices_from": "configure".
 */
void modelprices(json_t *m, double in, double out);

int modelresolve(const char *path, const char *provider, const char *model, json_t **out,
                 char **note);

#endif

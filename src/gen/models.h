/* models.h - models.yaml (models.c) */
#ifndef RETORT_MODELS_H
#define RETORT_MODELS_H

#include <jansson.h>


/*
 * Validate the models file and resolve the first entry of provider whose
 * key (a glob) matches model, defaults merged. A model no key matches is
 * accepted for anthropic (ids claude-...) and openai: the defaults alone,
 * without "prices", with "listed": false, and *note (malloc'd) says so;
 * *note is NULL for a listed model. 0 or -1 after diagnostics.
 */
int modelresolve(const char *path, const char *provider, const char *model, json_t **out,
                 char **note);

#endif

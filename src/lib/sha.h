/*
 * sha.h - SHA-256 through OpenSSL's libcrypto (its SHA256_ functions, not
 * EVP's: sha.c says why), as lowercase hex. A pure function for its
 * callers: libcrypto failing to hash dies with exit 1, as util.h's
 * allocators do when memory runs out, rather than make every seed and key
 * return an error.
 */
#ifndef RETORT_SHA_H
#define RETORT_SHA_H

#include <stddef.h>

struct sha {
	void *ctx; /* SHA256_CTX */
};

void shainit(struct sha *h);
void shaadd(struct sha *h, const void *p, size_t n);
/* adds s with its length in front, so fields cannot run into each other */
void shaaddfield(struct sha *h, const char *s);
void shahex(struct sha *h, char out[65]); /* finishes and frees h */
void sha256hex(const void *p, size_t n, char out[65]);

#endif

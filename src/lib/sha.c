/* sha.c - see sha.h */

/*
 * libcrypto's own SHA-256 functions (SHA256_Init, _Update, _Final), not
 * EVP's: an EVP digest is fetched from a provider, and OpenSSL 3's first
 * fetch loads its configuration and names every algorithm of the default
 * provider, about 1.1 ms of CPU a process (query-llm's cache hit hashes
 * one key and sends nothing). These are the same assembly underneath;
 * OpenSSL 3 marks them deprecated, so the 1.1.1 API is asked for here.
 */
#define OPENSSL_API_COMPAT 0x10101000L

#include "sha.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "util.h"

void
shainit(struct sha *h)
{
	SHA256_CTX *c = xmalloc(sizeof *c);

	if (SHA256_Init(c) != 1)
		die(EXIT_RETRY, "libcrypto: cannot start SHA-256");
	h->ctx = c;
}

void
shaadd(struct sha *h, const void *p, size_t n)
{
	if (SHA256_Update(h->ctx, p, n) != 1)
		die(EXIT_RETRY, "libcrypto: SHA-256 update failed");
}

void
shaaddfield(struct sha *h, const char *s)
{
	char len[32];
	size_t n = strlen(s);

	snprintf(len, sizeof len, "%zu:", n);
	shaadd(h, len, strlen(len));
	shaadd(h, s, n);
}

void
shahex(struct sha *h, char out[65])
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	static const char hex[] = "0123456789abcdef";
	int i;

	if (SHA256_Final(md, h->ctx) != 1)
		die(EXIT_RETRY, "libcrypto: SHA-256 final failed");
	free(h->ctx);
	h->ctx = NULL;
	for (i = 0; i < SHA256_DIGEST_LENGTH; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = 0;
}

void
sha256hex(const void *p, size_t n, char out[65])
{
	struct sha h;

	shainit(&h);
	shaadd(&h, p, n);
	shahex(&h, out);
}

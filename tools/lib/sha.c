/* sha.c - see sha.h */
#include "sha.h"

#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "util.h"

void
shainit(struct sha *h)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();

	if (!c || EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1)
		die(EXIT_RETRY, "libcrypto: cannot start SHA-256");
	h->ctx = c;
}

void
shaadd(struct sha *h, const void *p, size_t n)
{
	if (EVP_DigestUpdate(h->ctx, p, n) != 1)
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
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;
	static const char hex[] = "0123456789abcdef";

	if (EVP_DigestFinal_ex(h->ctx, md, &n) != 1 || n != 32)
		die(EXIT_RETRY, "libcrypto: SHA-256 final failed");
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
	for (i = 0; i < n; i++) {
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

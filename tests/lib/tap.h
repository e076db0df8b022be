/*
 * tap.h - Test Anything Protocol for the C unit tests, run by prove.
 *
 *   ok(cond, "what");  is_int(got, want, "what");  is_str(got, want, "what");
 *   return done_testing();
 */
#ifndef RETORT_TAP_H
#define RETORT_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

static int
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!tap_ok(g_ == w_, __FILE__, __LINE__, __VA_ARGS__)) \
		printf("#   got %lld, want %lld\n", g_, w_); \
} while (0)
#define is_str(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	if (!tap_ok(g_ && w_ && strcmp(g_, w_) == 0, __FILE__, __LINE__, __VA_ARGS__)) \
		printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

/* a step the tests need that is not itself a test (a scratch folder):
 * when it fails, the whole file stops, as TAP says */
#define need(cond, what) do { \
	if (!(cond)) { \
		printf("Bail out! cannot %s\n", what); \
		exit(1); \
	} \
} while (0)

static int
done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif

/*
 * parts.h - work spread over the CPUs, with nothing but pthreads: the
 * tools (util.c's users) and the trusted code built on its own into the
 * harness and the reference runner (tensor.c) share it.
 *
 * partsfor says how many parts n items make: one below min, else the
 * CPUs online, at most max and PARTS_MAX. runparts runs fn on each of n
 * parts (parts, stride bytes apart), the first here and the rest on
 * threads of their own (a part no thread could be made for runs here
 * too), and returns when all are done.
 */
#ifndef RETORT_PARTS_H
#define RETORT_PARTS_H

#include <stddef.h>

enum { PARTS_MAX = 32 };
int partsfor(size_t n, size_t min, int max);
void runparts(void *(*fn)(void *), void *parts, size_t stride, int n);

#endif

/*
 * Runs k independent parts of a job over threads: part i is fn(base + i * stride). Where a
 * thread cannot be started its part runs on the caller's thread, so every part always runs.
 */
#ifndef CARSH_UTIL_PARRUN_H
#define CARSH_UTIL_PARRUN_H

#include <stddef.h>

/* The most parts par_run() starts threads for; more run on the caller's thread. */
#define PARRUN_MAX 64

void par_run(void *(*fn)(void *part), void *base, size_t stride, size_t k);

/* How many parts of at least min_bytes each n bytes make, at most one per online core and
 * PARRUN_MAX; at least 1. */
size_t par_parts(size_t n, size_t min_bytes);

#endif

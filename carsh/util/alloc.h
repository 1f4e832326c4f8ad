/*
 * Allocation. Small bookkeeping allocations go through x*() and end the program with a
 * message when memory runs out (as git and tmux do): there is no sensible recovery from
 * failing to allocate forty bytes. Data arrays sized by the user go through data_alloc(),
 * which reports overflow and exhaustion as ordinary errors.
 */
#ifndef CARSH_UTIL_ALLOC_H
#define CARSH_UTIL_ALLOC_H

#include <stddef.h>

#include "util/error.h"

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* Grow an array of n elements of `size` bytes to at least `want` elements. */
void *xgrow(void *p, size_t *cap, size_t want, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* n * size bytes, or NULL with "<what>: ..." in e when it overflows or memory is exhausted. */
void *data_alloc(size_t n, size_t size, const char *what, struct cs_err *e);

/* n * size without overflow; 0 on success, -1 when it would overflow. */
int size_mul(size_t n, size_t size, size_t *out);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define UNUSED        __attribute__((unused))

#endif

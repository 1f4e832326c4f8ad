/* Error values: library code fills one and returns -1; only front-ends print. */
#ifndef CARSH_UTIL_ERROR_H
#define CARSH_UTIL_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/* Large enough for an OpenCL build log of a few hundred lines. */
#define CS_ERR_MAX 16384

struct cs_err {
	char msg[CS_ERR_MAX];
};

/* Replace the message. Returns -1 so callers can write `return err_set(...)`. */
int err_set(struct cs_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Put a location or context in front of the current message ("file.xml:12: "). Returns -1. */
int err_prefix(struct cs_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Set the message from errno: "<what>: <strerror(errno)>". Returns -1. */
int err_errno(struct cs_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same with a va_list, for wrappers that add a return value of their own. */
int err_vset(struct cs_err *e, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int err_vprefix(struct cs_err *e, const char *fmt, va_list ap)
        __attribute__((format(printf, 2, 0)));
int err_verrno(struct cs_err *e, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

void err_clear(struct cs_err *e);

#endif

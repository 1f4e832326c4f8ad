/*
 * Integer expressions (DESIGN §3.1): decimal literals, names, + - * / % ( ), unary minus,
 * min(a,b), max(a,b), log2(x). Evaluated in 64-bit signed arithmetic; overflow is an error.
 */
#ifndef CARSH_DATA_EXPR_H
#define CARSH_DATA_EXPR_H

#include "util/error.h"

/* Look up a name. Returns 0 and sets *value when found, 1 when the name is unknown, -1 on
 * an error (e set, e.g. the parameter's own value does not evaluate). */
typedef int (*expr_lookup)(void *ctx, const char *name, long long *value, struct cs_err *e);

/* Errors (all mention the expression text):
 *   "unknown parameter 'M' in 'M*2'"
 *   "division by zero in 'N/0'"            (also for %)
 *   "log2(6): 6 is not a power of two in 'log2(6)'"
 *   "integer overflow in '...'"
 *   "syntax error at 'x' in '2x'" / "unexpected end of expression in '(2'"
 *   "unknown function 'foo' in 'foo(2)'"
 * lookup may be NULL (no names known). */
int expr_eval(const char *text, expr_lookup lookup, void *ctx, long long *out, struct cs_err *e);

#endif

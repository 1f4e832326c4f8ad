/*
 * Floating expressions for a floating Constant's value (docs/formats.md): numbers as strtod
 * reads them in the C locale, names, + - * / ( ), unary minus and plus, evaluated in double
 * by the parser the integer expressions use (data/exprparse.h), with the same messages.
 */
#ifndef CARSH_DATA_FEXPR_H
#define CARSH_DATA_FEXPR_H

#include <stdbool.h>

#include "util/error.h"

/* Look up a name: 0 with *value set, 1 when unknown, -1 on an error (e set). */
typedef int (*fexpr_lookup)(void *ctx, const char *name, double *value, struct cs_err *e);

/* Whether text has an operator past its first character (not an exponent's sign): an
 * expression rather than a number or a name. */
bool fexpr_has_operator(const char *text);
/* Errors name the expression: "unknown parameter 'M' in '1.0/M'", "'abc' is not a number,
 * nor the name of a parameter", "division by zero in '1/(N-N)'", "syntax error at ')' in
 * '1.0/)'", "unexpected end of expression in '(2'". */
int fexpr_eval(const char *text, fexpr_lookup lookup, void *ctx, double *out, struct cs_err *e);

#endif

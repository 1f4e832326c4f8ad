/*
 * The one expression parser behind the integer (data/expr.h) and the floating
 * (data/fexpr.h) expressions: the grammar, the names, the function calls and every message
 * about the text are here, once; a value type (struct expr_type) gives what differs, its
 * literals and its arithmetic. By recursive descent:
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (MULOP unary)*             (MULOP: the type's, "*" "/" and maybe "%")
 *   unary   := '-' unary | '+' unary | primary  ('+' where the type takes it)
 *   primary := NUMBER | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'
 */
#ifndef CARSH_DATA_EXPRPARSE_H
#define CARSH_DATA_EXPRPARSE_H

#include <stdbool.h>

#include "util/error.h"

union expr_value {
	long long i;
	double f;
};

/* A type's part. Each function that fails sets e, naming the whole text, and returns -1. */
struct expr_type {
	bool (*number_start)(char c);
	/* Read the literal at *p (number_start(**p) holds) and move *p past it. */
	int (*number)(const char **p, const char *text, union expr_value *v, struct cs_err *e);
	/* a op b, op one of + - and the type's mul_ops */
	int (*apply)(char op, union expr_value a, union expr_value b, union expr_value *out,
	             const char *text, struct cs_err *e);
	int (*negate)(union expr_value *v, const char *text, struct cs_err *e);
	/* The number of arguments function name takes, 0 when there is none of that name
	 * (NULL: the type has no functions), and the call itself. */
	int (*arity)(const char *name);
	int (*call)(const char *name, const union expr_value *args, union expr_value *out,
	            const char *text, struct cs_err *e);
	const char *mul_ops;
	bool unary_plus;
};

/* Look up a name: 0 with *v set, 1 when it names nothing, -1 on an error (e set). */
typedef int (*expr_value_lookup)(void *ctx, const char *name, union expr_value *v,
                                 struct cs_err *e);

/* Errors, besides the type's: "unknown parameter 'M' in 'M*2'" ("'abc' is not a number,
 * nor the name of a parameter" when the whole text is the one unknown name), "syntax error
 * at 'x' in '2x'", "unexpected end of expression in '(2'", "unknown function 'foo' in
 * 'foo(2)'", "min() takes 2 arguments, not 1, in 'min(1)'", "expression nested too deeply
 * in '((...'". lookup may be NULL (no names known). */
int expr_parse(const struct expr_type *t, const char *text, expr_value_lookup lookup, void *ctx,
               union expr_value *out, struct cs_err *e);

#endif

/*
 * Integer expressions by recursive descent (DESIGN §3.1):
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/' | '%') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'
 */
#include "data/expr.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* Deeper nesting than any real count needs; it keeps "((((..." from exhausting the stack. */
#define EXPR_DEPTH_MAX 200

struct parser {
	const char *text;
	const char *p;
	expr_lookup lookup;
	void *ctx;
	struct cs_err *e;
	int depth;
};

static int parse_expr(struct parser *ps, long long *out);

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || is_digit(c);
}

static void skip_blanks(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

/* The next token, or the next character when it starts no token, for "syntax error at". */
static size_t token_len(const char *p)
{
	size_t n = 1;

	if (is_name_char(*p)) {
		while (is_name_char(p[n]))
			n++;
	}
	return n;
}

static int syntax_error(struct parser *ps)
{
	if (*ps->p == '\0')
		return err_set(ps->e, "unexpected end of expression in '%s'", ps->text);
	return err_set(ps->e, "syntax error at '%.*s' in '%s'", (int)token_len(ps->p), ps->p,
	               ps->text);
}

static int overflow(struct parser *ps)
{
	return err_set(ps->e, "integer overflow in '%s'", ps->text);
}

static int expect(struct parser *ps, char c)
{
	skip_blanks(ps);
	if (*ps->p != c)
		return syntax_error(ps);
	ps->p++;
	return 0;
}

static int parse_number(struct parser *ps, long long *out)
{
	long long v = 0;

	for (; is_digit(*ps->p); ps->p++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, *ps->p - '0', &v))
			return overflow(ps);
	}
	*out = v;
	return 0;
}

static int parse_args(struct parser *ps, long long *args, int max, int *n)
{
	*n = 0;
	skip_blanks(ps);
	if (*ps->p == ')') {
		ps->p++;
		return 0;
	}
	for (;;) {
		long long v;

		if (parse_expr(ps, &v))
			return -1;
		if (*n < max)
			args[*n] = v;
		(*n)++;
		skip_blanks(ps);
		if (*ps->p != ',')
			return expect(ps, ')');
		ps->p++;
	}
}

static int call_log2(struct parser *ps, long long x, long long *out)
{
	if (x <= 0 || (x & (x - 1)) != 0)
		return err_set(ps->e, "log2(%lld): %lld is not a power of two in '%s'", x, x,
		               ps->text);
	*out = __builtin_ctzll((unsigned long long)x);
	return 0;
}

/* The number of arguments of a known function, or 0. */
static int function_arity(const char *name)
{
	if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0)
		return 2;
	return strcmp(name, "log2") == 0 ? 1 : 0;
}

static int call(struct parser *ps, const char *name, long long *out)
{
	int want = function_arity(name);
	long long args[2];
	int n;

	if (want == 0)
		return err_set(ps->e, "unknown function '%s' in '%s'", name, ps->text);
	if (parse_args(ps, args, 2, &n))
		return -1;
	if (n != want)
		return err_set(ps->e, "%s() takes %d argument%s, not %d, in '%s'", name, want,
		               want == 1 ? "" : "s", n, ps->text);
	if (want == 1)
		return call_log2(ps, args[0], out);
	if (strcmp(name, "min") == 0)
		*out = args[0] < args[1] ? args[0] : args[1];
	else
		*out = args[0] > args[1] ? args[0] : args[1];
	return 0;
}

static int lookup_name(struct parser *ps, const char *name, long long *out)
{
	int rc = ps->lookup ? ps->lookup(ps->ctx, name, out, ps->e) : 1;

	/* A value that is one unknown word ("abc") was meant as a number more likely than as
	 * an expression. */
	if (rc > 0 && strcmp(name, ps->text) == 0)
		return err_set(ps->e, "'%s' is not a number, nor the name of a parameter", name);
	if (rc > 0)
		return err_set(ps->e, "unknown parameter '%s' in '%s'", name, ps->text);
	return rc;
}

static int parse_name(struct parser *ps, long long *out)
{
	const char *start = ps->p;
	char *name;
	int rc;

	while (is_name_char(*ps->p))
		ps->p++;
	name = xstrndup(start, (size_t)(ps->p - start));
	skip_blanks(ps);
	if (*ps->p == '(') {
		ps->p++;
		rc = call(ps, name, out);
	} else {
		rc = lookup_name(ps, name, out);
	}
	free(name);
	return rc;
}

static int parse_primary(struct parser *ps, long long *out)
{
	skip_blanks(ps);
	if (is_digit(*ps->p))
		return parse_number(ps, out);
	if (is_name_start(*ps->p))
		return parse_name(ps, out);
	if (*ps->p != '(')
		return syntax_error(ps);
	ps->p++;
	if (parse_expr(ps, out))
		return -1;
	return expect(ps, ')');
}

static int parse_unary(struct parser *ps, long long *out)
{
	skip_blanks(ps);
	if (*ps->p != '-')
		return parse_primary(ps, out);
	ps->p++;
	if (++ps->depth > EXPR_DEPTH_MAX)
		return err_set(ps->e, "expression nested too deeply in '%s'", ps->text);
	if (parse_unary(ps, out))
		return -1;
	ps->depth--;
	if (__builtin_sub_overflow(0, *out, out))
		return overflow(ps);
	return 0;
}

/* C semantics: the quotient truncates toward zero, the remainder takes the dividend's sign. */
static int divide(struct parser *ps, char op, long long a, long long b, long long *out)
{
	if (b == 0)
		return err_set(ps->e, "division by zero in '%s'", ps->text);
	if (b == -1) {
		/* INT64_MIN / -1 overflows, and INT64_MIN % -1 traps on x86 although it is 0. */
		if (op == '%')
			*out = 0;
		else if (__builtin_sub_overflow(0, a, out))
			return overflow(ps);
		return 0;
	}
	*out = op == '/' ? a / b : a % b;
	return 0;
}

static int parse_term(struct parser *ps, long long *out)
{
	if (parse_unary(ps, out))
		return -1;
	for (;;) {
		char op;
		long long rhs;

		skip_blanks(ps);
		op = *ps->p;
		if (op != '*' && op != '/' && op != '%')
			return 0;
		ps->p++;
		if (parse_unary(ps, &rhs))
			return -1;
		if (op == '*') {
			if (__builtin_mul_overflow(*out, rhs, out))
				return overflow(ps);
		} else if (divide(ps, op, *out, rhs, out)) {
			return -1;
		}
	}
}

static int parse_expr(struct parser *ps, long long *out)
{
	if (++ps->depth > EXPR_DEPTH_MAX)
		return err_set(ps->e, "expression nested too deeply in '%s'", ps->text);
	if (parse_term(ps, out))
		return -1;
	for (;;) {
		char op;
		long long rhs;
		bool over;

		skip_blanks(ps);
		op = *ps->p;
		if (op != '+' && op != '-')
			break;
		ps->p++;
		if (parse_term(ps, &rhs))
			return -1;
		over = op == '+' ? __builtin_add_overflow(*out, rhs, out)
		                 : __builtin_sub_overflow(*out, rhs, out);
		if (over)
			return overflow(ps);
	}
	ps->depth--;
	return 0;
}

int expr_eval(const char *text, expr_lookup lookup, void *ctx, long long *out, struct cs_err *e)
{
	struct parser ps = {text, text, lookup, ctx, e, 0};
	long long v;

	if (parse_expr(&ps, &v))
		return -1;
	skip_blanks(&ps);
	if (*ps.p != '\0')
		return syntax_error(&ps);
	*out = v;
	return 0;
}

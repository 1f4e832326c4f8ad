/* The expression parser of both value types (data/exprparse.h says the grammar). */
#include "data/exprparse.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* Deeper nesting than any real value needs; it keeps "((((..." from exhausting the stack. */
#define EXPR_DEPTH_MAX 200
/* More arguments than any function takes: the rest are only counted, for the message. */
#define EXPR_ARGS_MAX 4

struct parser {
	const struct expr_type *t;
	const char *text;
	const char *p;
	expr_value_lookup lookup;
	void *ctx;
	struct cs_err *e;
	int depth;
};

static int parse_expr(struct parser *ps, union expr_value *out);

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
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

static int expect(struct parser *ps, char c)
{
	skip_blanks(ps);
	if (*ps->p != c)
		return syntax_error(ps);
	ps->p++;
	return 0;
}

/* A level deeper; the caller goes back up with ps->depth-- once it has parsed. */
static int deeper(struct parser *ps)
{
	if (++ps->depth > EXPR_DEPTH_MAX)
		return err_set(ps->e, "expression nested too deeply in '%s'", ps->text);
	return 0;
}

static int parse_args(struct parser *ps, union expr_value *args, int *n)
{
	*n = 0;
	skip_blanks(ps);
	if (*ps->p == ')') {
		ps->p++;
		return 0;
	}
	for (;;) {
		union expr_value v;

		if (parse_expr(ps, &v))
			return -1;
		if (*n < EXPR_ARGS_MAX)
			args[*n] = v;
		(*n)++;
		skip_blanks(ps);
		if (*ps->p != ',')
			return expect(ps, ')');
		ps->p++;
	}
}

/* name( was read: a function is known before its arguments are parsed. */
static int call(struct parser *ps, const char *name, union expr_value *out)
{
	int want = ps->t->arity ? ps->t->arity(name) : 0;
	union expr_value args[EXPR_ARGS_MAX];
	int n;

	if (want == 0)
		return err_set(ps->e, "unknown function '%s' in '%s'", name, ps->text);
	if (parse_args(ps, args, &n))
		return -1;
	if (n != want)
		return err_set(ps->e, "%s() takes %d argument%s, not %d, in '%s'", name, want,
		               want == 1 ? "" : "s", n, ps->text);
	return ps->t->call(name, args, out, ps->text, ps->e);
}

static int lookup_name(struct parser *ps, const char *name, union expr_value *out)
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

static int parse_name(struct parser *ps, union expr_value *out)
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

static int parse_primary(struct parser *ps, union expr_value *out)
{
	skip_blanks(ps);
	if (ps->t->number_start(*ps->p))
		return ps->t->number(&ps->p, ps->text, out, ps->e);
	if (is_name_start(*ps->p))
		return parse_name(ps, out);
	if (*ps->p != '(')
		return syntax_error(ps);
	ps->p++;
	if (parse_expr(ps, out))
		return -1;
	return expect(ps, ')');
}

static int parse_unary(struct parser *ps, union expr_value *out)
{
	char sign;

	skip_blanks(ps);
	sign = *ps->p;
	if (sign != '-' && !(sign == '+' && ps->t->unary_plus))
		return parse_primary(ps, out);
	ps->p++;
	if (deeper(ps) || parse_unary(ps, out))
		return -1;
	ps->depth--;
	return sign == '-' ? ps->t->negate(out, ps->text, ps->e) : 0;
}

/* operand (OP operand)*, left to right, OP one of ops. */
static int parse_chain(struct parser *ps, const char *ops,
                       int (*operand)(struct parser *, union expr_value *), union expr_value *out)
{
	if (operand(ps, out))
		return -1;
	for (;;) {
		union expr_value rhs;
		char op;

		skip_blanks(ps);
		op = *ps->p;
		if (op == '\0' || !strchr(ops, op))
			return 0;
		ps->p++;
		if (operand(ps, &rhs) || ps->t->apply(op, *out, rhs, out, ps->text, ps->e))
			return -1;
	}
}

static int parse_term(struct parser *ps, union expr_value *out)
{
	return parse_chain(ps, ps->t->mul_ops, parse_unary, out);
}

static int parse_expr(struct parser *ps, union expr_value *out)
{
	if (deeper(ps) || parse_chain(ps, "+-", parse_term, out))
		return -1;
	ps->depth--;
	return 0;
}

int expr_parse(const struct expr_type *t, const char *text, expr_value_lookup lookup, void *ctx,
               union expr_value *out, struct cs_err *e)
{
	struct parser ps = {t, text, text, lookup, ctx, e, 0};
	union expr_value v;

	if (parse_expr(&ps, &v))
		return -1;
	skip_blanks(&ps);
	if (*ps.p != '\0')
		return syntax_error(&ps);
	*out = v;
	return 0;
}

/* Floating expressions (data/fexpr.h): the double value type of the one expression parser
 * (data/exprparse.h). */
#include "data/fexpr.h"

#include <stdlib.h>
#include <string.h>

#include "data/exprparse.h"
#include "data/types.h"
#include "util/alloc.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool float_number_start(char c)
{
	return is_digit(c) || c == '.';
}

/* Digits, a point, an exponent: the token number_parse then reads. */
static int float_number(const char **p, const char *text, union expr_value *v, struct cs_err *e)
{
	const char *s = *p, *q = *p;
	char *tok;
	int rc;

	while (is_digit(*q) || *q == '.')
		q++;
	if ((*q == 'e' || *q == 'E') &&
	    (is_digit(q[1]) || ((q[1] == '+' || q[1] == '-') && is_digit(q[2]))))
		for (q += 2; is_digit(*q); q++)
			;
	*p = q;
	tok = xstrndup(s, (size_t)(q - s));
	rc = number_parse(SC_DOUBLE, tok, &v->f, e);
	free(tok);
	return rc ? err_prefix(e, "in '%s': ", text) : 0;
}

static int float_apply(char op, union expr_value a, union expr_value b, union expr_value *out,
                       const char *text, struct cs_err *e)
{
	switch (op) {
	case '+':
		out->f = a.f + b.f;
		break;
	case '-':
		out->f = a.f - b.f;
		break;
	case '*':
		out->f = a.f * b.f;
		break;
	default:
		if (b.f == 0)
			return err_set(e, "division by zero in '%s'", text);
		out->f = a.f / b.f;
	}
	return 0;
}

static int float_negate(union expr_value *v, const char *text, struct cs_err *e)
{
	(void)text;
	(void)e;
	v->f = -v->f;
	return 0;
}

static const struct expr_type float_type = {
        .number_start = float_number_start,
        .number = float_number,
        .apply = float_apply,
        .negate = float_negate,
        .arity = NULL,
        .call = NULL,
        .mul_ops = "*/",
        .unary_plus = true,
};

bool fexpr_has_operator(const char *text)
{
	/* An empty value (NAME=) has no second character to start from. */
	if (!text[0])
		return false;
	if (strpbrk(text, "*/()"))
		return true;
	for (size_t i = 1; text[i]; i++)
		if ((text[i] == '+' || text[i] == '-') && text[i - 1] != 'e' && text[i - 1] != 'E')
			return true;
	return false;
}

struct float_names {
	fexpr_lookup lookup;
	void *ctx;
};

static int float_name(void *ctx, const char *name, union expr_value *v, struct cs_err *e)
{
	const struct float_names *fn = ctx;

	return fn->lookup ? fn->lookup(fn->ctx, name, &v->f, e) : 1;
}

int fexpr_eval(const char *text, fexpr_lookup lookup, void *ctx, double *out, struct cs_err *e)
{
	struct float_names fn = {lookup, ctx};
	union expr_value v;

	if (expr_parse(&float_type, text, float_name, &fn, &v, e))
		return -1;
	*out = v.f;
	return 0;
}

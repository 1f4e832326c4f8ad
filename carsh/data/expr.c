/* Integer expressions (data/expr.h): the integer value type of the one expression parser
 * (data/exprparse.h), in 64-bit signed arithmetic where overflow is an error. */
#include "data/expr.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "data/exprparse.h"

static int overflow(const char *text, struct cs_err *e)
{
	return err_set(e, "integer overflow in '%s'", text);
}

static bool int_number_start(char c)
{
	return c >= '0' && c <= '9';
}

static int int_number(const char **p, const char *text, union expr_value *v, struct cs_err *e)
{
	long long n = 0;

	for (; **p >= '0' && **p <= '9'; (*p)++) {
		if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, **p - '0', &n))
			return overflow(text, e);
	}
	v->i = n;
	return 0;
}

/* C semantics: the quotient truncates toward zero, the remainder takes the dividend's sign. */
static int divide(char op, long long a, long long b, long long *out, const char *text,
                  struct cs_err *e)
{
	if (b == 0)
		return err_set(e, "division by zero in '%s'", text);
	if (b == -1) {
		/* INT64_MIN / -1 overflows, and INT64_MIN % -1 traps on x86 although it is 0. */
		if (op == '%')
			*out = 0;
		else if (__builtin_sub_overflow(0, a, out))
			return overflow(text, e);
		return 0;
	}
	*out = op == '/' ? a / b : a % b;
	return 0;
}

static int int_apply(char op, union expr_value a, union expr_value b, union expr_value *out,
                     const char *text, struct cs_err *e)
{
	bool over;

	switch (op) {
	case '+':
		over = __builtin_add_overflow(a.i, b.i, &out->i);
		break;
	case '-':
		over = __builtin_sub_overflow(a.i, b.i, &out->i);
		break;
	case '*':
		over = __builtin_mul_overflow(a.i, b.i, &out->i);
		break;
	default:
		return divide(op, a.i, b.i, &out->i, text, e);
	}
	return over ? overflow(text, e) : 0;
}

static int int_negate(union expr_value *v, const char *text, struct cs_err *e)
{
	return __builtin_sub_overflow(0, v->i, &v->i) ? overflow(text, e) : 0;
}

static int int_arity(const char *name)
{
	if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0)
		return 2;
	return strcmp(name, "log2") == 0 ? 1 : 0;
}

static int int_call(const char *name, const union expr_value *args, union expr_value *out,
                    const char *text, struct cs_err *e)
{
	long long x = args[0].i;

	if (strcmp(name, "min") == 0) {
		out->i = x < args[1].i ? x : args[1].i;
	} else if (strcmp(name, "max") == 0) {
		out->i = x > args[1].i ? x : args[1].i;
	} else {
		if (x <= 0 || (x & (x - 1)) != 0)
			return err_set(e, "log2(%lld): %lld is not a power of two in '%s'", x, x,
			               text);
		out->i = __builtin_ctzll((unsigned long long)x);
	}
	return 0;
}

static const struct expr_type int_type = {
        .number_start = int_number_start,
        .number = int_number,
        .apply = int_apply,
        .negate = int_negate,
        .arity = int_arity,
        .call = int_call,
        .mul_ops = "*/%",
        .unary_plus = false,
};

struct int_names {
	expr_lookup lookup;
	void *ctx;
};

static int int_name(void *ctx, const char *name, union expr_value *v, struct cs_err *e)
{
	const struct int_names *in = ctx;

	return in->lookup ? in->lookup(in->ctx, name, &v->i, e) : 1;
}

int expr_eval(const char *text, expr_lookup lookup, void *ctx, long long *out, struct cs_err *e)
{
	struct int_names in = {lookup, ctx};
	union expr_value v;

	if (expr_parse(&int_type, text, int_name, &in, &v, e))
		return -1;
	*out = v.i;
	return 0;
}

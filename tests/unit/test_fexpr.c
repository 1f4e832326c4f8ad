/* Floating expressions for constants (data/fexpr.h). */
#include <stdlib.h>
#include <string.h>

#include "data/expr.h"
#include "data/fexpr.h"
#include "suites.h"

/* N = 8, H = 0.25; BAD fails with its own message. */
static int lookup(void *ctx, const char *name, double *v, struct cs_err *e)
{
	(void)ctx;
	if (strcmp(name, "N") == 0)
		*v = 8;
	else if (strcmp(name, "H") == 0)
		*v = 0.25;
	else if (strcmp(name, "BAD") == 0)
		return err_set(e, "BAD is broken");
	else
		return 1;
	return 0;
}

static double eval(const char *text)
{
	struct cs_err e = {""};
	double v = -1;

	ck_assert_msg(fexpr_eval(text, lookup, NULL, &v, &e) == 0, "'%s': %s", text, e.msg);
	return v;
}

static const char *eval_error(const char *text, struct cs_err *e)
{
	double v;

	ck_assert_int_eq(fexpr_eval(text, lookup, NULL, &v, e), -1);
	return e->msg;
}

START_TEST(test_fexpr_values_follow_c_arithmetic_in_double)
{
	ck_assert(eval("1.0/N") == 1.0 / 8);
	ck_assert(eval("1/3") == 1.0 / 3);
	ck_assert(eval("2*H + 1e-1") == 2 * 0.25 + 0.1);
	ck_assert(eval("1 - 2 - 3") == -4);
	ck_assert(eval("12 / 2 / 3") == 2);
	ck_assert(eval(" -(N + 2) * .5 ") == -5);
	ck_assert(eval("2.5E+2") == 250);
	ck_assert(eval("--H") == 0.25);
	ck_assert(eval("+H") == 0.25);
	ck_assert(eval("(1 +\n 2)\r") == 3);
}
END_TEST

/* The integer and the floating path are one parser: the same text gets the same message. */
START_TEST(test_fexpr_messages_are_the_integer_paths)
{
	struct cs_err e, ie;
	long long i;
	static const char *const texts[] = {
	        "x", "2 abc", "1+Q", "(2", "2+*3", "1/0", "foo(2)", ")",
	};

	ck_assert_str_eq(eval_error("x", &e), "'x' is not a number, nor the name of a parameter");
	ck_assert_str_eq(eval_error("2 abc", &e), "syntax error at 'abc' in '2 abc'");
	ck_assert_str_eq(eval_error("min(1, 2)", &e), "unknown function 'min' in 'min(1, 2)'");
	for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
		ck_assert_int_eq(expr_eval(texts[k], NULL, NULL, &i, &ie), -1);
		ck_assert_str_eq(eval_error(texts[k], &e), ie.msg);
	}
}
END_TEST

START_TEST(test_fexpr_errors_name_the_expression)
{
	struct cs_err e;
	char *deep = malloc(1002);

	ck_assert_str_eq(eval_error("1.0/M", &e), "unknown parameter 'M' in '1.0/M'");
	ck_assert_str_eq(eval_error("1/(N-8)", &e), "division by zero in '1/(N-8)'");
	ck_assert_str_eq(eval_error("(2", &e), "unexpected end of expression in '(2'");
	ck_assert_str_eq(eval_error("1.0/)", &e), "syntax error at ')' in '1.0/)'");
	ck_assert_str_eq(eval_error("2 3", &e), "syntax error at '3' in '2 3'");
	ck_assert_str_eq(eval_error("BAD*2", &e), "BAD is broken");
	memset(deep, '(', 1000);
	strcpy(deep + 1000, "1");
	ck_assert_ptr_nonnull(strstr(eval_error(deep, &e), "expression nested too deeply"));
	free(deep);
}
END_TEST

Suite *suite_fexpr(void)
{
	Suite *s = suite_create("fexpr");
	TCase *tc = tcase_create("fexpr");

	tcase_add_test(tc, test_fexpr_values_follow_c_arithmetic_in_double);
	tcase_add_test(tc, test_fexpr_errors_name_the_expression);
	tcase_add_test(tc, test_fexpr_messages_are_the_integer_paths);
	suite_add_tcase(s, tc);
	return s;
}

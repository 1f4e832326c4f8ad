/* Integer expressions (DESIGN §3.1). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/expr.h"
#include "suites.h"

/* Names known to the tests' lookup: N=1024, M=-3, BAD fails with its own message. */
static int lookup(void *ctx, const char *name, long long *value, struct cs_err *e)
{
	int *calls = ctx;

	if (calls)
		(*calls)++;
	if (strcmp(name, "N") == 0)
		*value = 1024;
	else if (strcmp(name, "M") == 0)
		*value = -3;
	else if (strcmp(name, "BAD") == 0)
		return err_set(e, "BAD is broken");
	else
		return 1;
	return 0;
}

static long long eval(const char *text)
{
	struct cs_err e = {""};
	long long v = 0;

	ck_assert_msg(expr_eval(text, lookup, NULL, &v, &e) == 0, "'%s': %s", text, e.msg);
	return v;
}

static const char *eval_error(const char *text, struct cs_err *e)
{
	long long v = 12345;

	ck_assert_msg(expr_eval(text, lookup, NULL, &v, e) == -1, "'%s' gave %lld", text, v);
	ck_assert_int_eq(v, 12345);
	return e->msg;
}

START_TEST(test_expr_literals_and_names)
{
	ck_assert_int_eq(eval("42"), 42);
	ck_assert_int_eq(eval("0"), 0);
	ck_assert_int_eq(eval("007"), 7);
	ck_assert_int_eq(eval("N"), 1024);
	ck_assert_int_eq(eval("M"), -3);
	ck_assert_int_eq(eval("9223372036854775807"), INT64_MAX);
}
END_TEST

START_TEST(test_expr_precedence_and_associativity)
{
	ck_assert_int_eq(eval("2+3*4"), 14);
	ck_assert_int_eq(eval("2*3+4"), 10);
	ck_assert_int_eq(eval("(2+3)*4"), 20);
	ck_assert_int_eq(eval("10-4-3"), 3);
	ck_assert_int_eq(eval("100/10/5"), 2);
	ck_assert_int_eq(eval("2*3%4"), 2);
	ck_assert_int_eq(eval("N/4+N%5*2"), 256 + 4 * 2);
	ck_assert_int_eq(eval("((((1))))"), 1);
}
END_TEST

START_TEST(test_expr_unary_minus)
{
	ck_assert_int_eq(eval("-5"), -5);
	ck_assert_int_eq(eval("--5"), 5);
	ck_assert_int_eq(eval("2*-3"), -6);
	ck_assert_int_eq(eval("-(2+3)"), -5);
	ck_assert_int_eq(eval("-M"), 3);
	ck_assert_int_eq(eval("4--2"), 6);
	ck_assert_int_eq(eval("-9223372036854775807-1"), INT64_MIN);
}
END_TEST

START_TEST(test_expr_division_truncates_toward_zero)
{
	ck_assert_int_eq(eval("7/2"), 3);
	ck_assert_int_eq(eval("-7/2"), -3);
	ck_assert_int_eq(eval("7/-2"), -3);
	ck_assert_int_eq(eval("-7/-2"), 3);
	ck_assert_int_eq(eval("7%3"), 1);
	ck_assert_int_eq(eval("-7%2"), -1);
	ck_assert_int_eq(eval("7%-2"), 1);
	ck_assert_int_eq(eval("(-9223372036854775807-1)%-1"), 0);
	ck_assert_int_eq(eval("(-9223372036854775807-1)/1"), INT64_MIN);
}
END_TEST

START_TEST(test_expr_functions)
{
	ck_assert_int_eq(eval("min(3, 5)"), 3);
	ck_assert_int_eq(eval("max(3,5)*2"), 10);
	ck_assert_int_eq(eval("min(M, 0)"), -3);
	ck_assert_int_eq(eval("max(min(1,2),min(7,4))"), 4);
	ck_assert_int_eq(eval("log2(1024)"), 10);
	ck_assert_int_eq(eval("log2(N)"), 10);
	ck_assert_int_eq(eval("log2(1)"), 0);
	ck_assert_int_eq(eval("log2(4611686018427387904)"), 62);
	ck_assert_int_eq(eval(" log2 ( 8 ) + 1"), 4);
}
END_TEST

START_TEST(test_expr_whitespace_is_allowed_anywhere_between_tokens)
{
	ck_assert_int_eq(eval(" \t1 +\n2 * ( N / 512 ) "), 5);
}
END_TEST

START_TEST(test_expr_error_messages)
{
	struct cs_err e;

	ck_assert_str_eq(eval_error("Q*2", &e), "unknown parameter 'Q' in 'Q*2'");
	ck_assert_str_eq(eval_error("N/0", &e), "division by zero in 'N/0'");
	ck_assert_str_eq(eval_error("5%(N-N)", &e), "division by zero in '5%(N-N)'");
	ck_assert_str_eq(eval_error("log2(6)", &e),
	                 "log2(6): 6 is not a power of two in 'log2(6)'");
	ck_assert_str_eq(eval_error("log2(0)", &e),
	                 "log2(0): 0 is not a power of two in 'log2(0)'");
	ck_assert_str_eq(eval_error("log2(-4)", &e),
	                 "log2(-4): -4 is not a power of two in 'log2(-4)'");
	ck_assert_str_eq(eval_error("2x", &e), "syntax error at 'x' in '2x'");
	ck_assert_str_eq(eval_error("2 3", &e), "syntax error at '3' in '2 3'");
	ck_assert_str_eq(eval_error("2+*3", &e), "syntax error at '*' in '2+*3'");
	ck_assert_str_eq(eval_error("2.5", &e), "syntax error at '.' in '2.5'");
	ck_assert_str_eq(eval_error("(2))", &e), "syntax error at ')' in '(2))'");
	ck_assert_str_eq(eval_error("(2", &e), "unexpected end of expression in '(2'");
	ck_assert_str_eq(eval_error("", &e), "unexpected end of expression in ''");
	ck_assert_str_eq(eval_error("3-", &e), "unexpected end of expression in '3-'");
	ck_assert_str_eq(eval_error("min(1,", &e), "unexpected end of expression in 'min(1,'");
	ck_assert_str_eq(eval_error("foo(2)", &e), "unknown function 'foo' in 'foo(2)'");
	ck_assert_str_eq(eval_error("min(1)", &e), "min() takes 2 arguments, not 1, in 'min(1)'");
	ck_assert_str_eq(eval_error("log2(4,2)", &e),
	                 "log2() takes 1 argument, not 2, in 'log2(4,2)'");
	ck_assert_str_eq(eval_error("max()", &e), "max() takes 2 arguments, not 0, in 'max()'");
}
END_TEST

START_TEST(test_expr_overflow_is_an_error)
{
	const char *over[] = {
	        "9223372036854775807+1",     "9223372036854775808",   "99999999999999999999999",
	        "-9223372036854775807-2",    "4611686018427387904*2", "(-9223372036854775807-1)/-1",
	        "-(-9223372036854775807-1)", "3037000500*3037000500",
	};
	struct cs_err e;
	char want[128];

	for (size_t i = 0; i < sizeof(over) / sizeof(over[0]); i++) {
		snprintf(want, sizeof(want), "integer overflow in '%s'", over[i]);
		ck_assert_str_eq(eval_error(over[i], &e), want);
	}
	ck_assert_int_eq(eval("3037000499*3037000499"), 9223372030926249001LL);
}
END_TEST

START_TEST(test_expr_lookup_errors_pass_through)
{
	struct cs_err e;

	ck_assert_str_eq(eval_error("1+BAD", &e), "BAD is broken");
}
END_TEST

START_TEST(test_expr_without_lookup_knows_no_names)
{
	struct cs_err e;
	long long v;

	ck_assert_int_eq(expr_eval("N+1", NULL, NULL, &v, &e), -1);
	ck_assert_str_eq(e.msg, "unknown parameter 'N' in 'N+1'");
	ck_assert_int_eq(expr_eval("6*7", NULL, NULL, &v, &e), 0);
	ck_assert_int_eq(v, 42);
}
END_TEST

START_TEST(test_expr_passes_context_to_lookup)
{
	struct cs_err e;
	long long v;
	int calls = 0;

	ck_assert_int_eq(expr_eval("N+N*M", lookup, &calls, &v, &e), 0);
	ck_assert_int_eq(v, 1024 - 3 * 1024);
	ck_assert_int_eq(calls, 3);
}
END_TEST

static char *nested(int depth)
{
	char *s = malloc(2 * (size_t)depth + 2);

	memset(s, '(', (size_t)depth);
	s[depth] = '1';
	memset(s + depth + 1, ')', (size_t)depth);
	s[2 * depth + 1] = '\0';
	return s;
}

START_TEST(test_expr_deep_nesting_is_an_error_not_a_crash)
{
	char *ok = nested(100);
	char *deep = nested(100000);
	char *minus = malloc(100002);
	struct cs_err e;
	long long v;

	ck_assert_int_eq(eval(ok), 1);
	ck_assert_int_eq(expr_eval(deep, NULL, NULL, &v, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "expression nested too deeply in '((((("));
	memset(minus, '-', 100000);
	strcpy(minus + 100000, "1");
	ck_assert_int_eq(expr_eval(minus, NULL, NULL, &v, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "expression nested too deeply"));
	free(ok);
	free(deep);
	free(minus);
}
END_TEST

Suite *suite_expr(void)
{
	Suite *s = suite_create("expr");
	TCase *tc = tcase_create("expr");

	tcase_add_test(tc, test_expr_literals_and_names);
	tcase_add_test(tc, test_expr_precedence_and_associativity);
	tcase_add_test(tc, test_expr_unary_minus);
	tcase_add_test(tc, test_expr_division_truncates_toward_zero);
	tcase_add_test(tc, test_expr_functions);
	tcase_add_test(tc, test_expr_whitespace_is_allowed_anywhere_between_tokens);
	tcase_add_test(tc, test_expr_error_messages);
	tcase_add_test(tc, test_expr_overflow_is_an_error);
	tcase_add_test(tc, test_expr_lookup_errors_pass_through);
	tcase_add_test(tc, test_expr_without_lookup_knows_no_names);
	tcase_add_test(tc, test_expr_passes_context_to_lookup);
	tcase_add_test(tc, test_expr_deep_nesting_is_an_error_not_a_crash);
	suite_add_tcase(s, tc);
	return s;
}

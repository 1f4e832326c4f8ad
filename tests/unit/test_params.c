/* Parameters and scopes (DESIGN §3.1). */
#include <stdio.h>
#include <string.h>

#include "data/params.h"
#include "suites.h"

START_TEST(test_params_set_get_replace)
{
	struct params ps = PARAMS_INIT;
	const struct param *p;

	params_set(&ps, "N", "1024", "fm.xml:3");
	params_set(&ps, "M", "N/2", NULL);
	p = params_get(&ps, "N");
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->value, "1024");
	ck_assert_str_eq(p->origin, "fm.xml:3");
	ck_assert_ptr_null(params_get(&ps, "M")->origin);
	ck_assert_ptr_null(params_get(&ps, "n"));

	params_set(&ps, "N", "64", "command line");
	ck_assert_uint_eq(ps.n, 2);
	ck_assert_str_eq(params_get(&ps, "N")->value, "64");
	ck_assert_str_eq(params_get(&ps, "N")->origin, "command line");
	params_free(&ps);
	ck_assert_uint_eq(ps.n, 0);
}
END_TEST

START_TEST(test_params_set_may_reuse_its_own_strings)
{
	struct params ps = PARAMS_INIT;

	params_set(&ps, "N", "1024", "a.xml:1");
	params_set(&ps, "N", params_get(&ps, "N")->value, params_get(&ps, "N")->origin);
	ck_assert_str_eq(params_get(&ps, "N")->value, "1024");
	ck_assert_str_eq(params_get(&ps, "N")->origin, "a.xml:1");
	params_free(&ps);
}
END_TEST

START_TEST(test_params_unset_keeps_the_others_in_order)
{
	struct params ps = PARAMS_INIT;
	char name[16];

	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "P%d", i);
		params_set(&ps, name, name, NULL);
	}
	ck_assert(params_unset(&ps, "P5"));
	ck_assert(!params_unset(&ps, "P5"));
	ck_assert(params_unset(&ps, "P19"));
	ck_assert_uint_eq(ps.n, 18);
	ck_assert_ptr_null(params_get(&ps, "P5"));
	ck_assert_str_eq(ps.v[4].name, "P4");
	ck_assert_str_eq(ps.v[5].name, "P6");
	ck_assert_str_eq(params_get(&ps, "P18")->value, "P18");
	params_free(&ps);
}
END_TEST

START_TEST(test_params_copy_is_deep)
{
	struct params src = PARAMS_INIT, dst = PARAMS_INIT;

	params_set(&src, "N", "8", "x.xml:2");
	params_set(&src, "K", "3", NULL);
	params_copy(&dst, &src);
	params_set(&src, "N", "9", NULL);
	params_free(&src);
	ck_assert_uint_eq(dst.n, 2);
	ck_assert_str_eq(params_get(&dst, "N")->value, "8");
	ck_assert_str_eq(params_get(&dst, "N")->origin, "x.xml:2");
	ck_assert_str_eq(params_get(&dst, "K")->value, "3");
	params_free(&dst);
}
END_TEST

START_TEST(test_param_name_valid)
{
	const char *good[] = {"N", "_", "_x1", "blockSize", "A_B_9"};
	const char *bad[] = {"", "1N", "N-1", "a b", "x.y", "é", "N=", "$N"};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(param_name_valid(good[i]), "%s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!param_name_valid(bad[i]), "%s", bad[i]);
}
END_TEST

/* The three layers of DESIGN §3.1: executable, caller, flow-model defaults. */
struct layers {
	struct params exe, caller, defaults;
	struct scope sc;
};

static void layers_init(struct layers *l)
{
	l->exe = (struct params)PARAMS_INIT;
	l->caller = (struct params)PARAMS_INIT;
	l->defaults = (struct params)PARAMS_INIT;
	scope_init(&l->sc);
	scope_push(&l->sc, &l->exe);
	scope_push(&l->sc, &l->caller);
	scope_push(&l->sc, &l->defaults);
}

static void layers_free(struct layers *l)
{
	params_free(&l->exe);
	params_free(&l->caller);
	params_free(&l->defaults);
}

START_TEST(test_scope_first_layer_wins)
{
	struct layers l;
	long long v;
	struct cs_err e;

	layers_init(&l);
	params_set(&l.exe, "N", "8", NULL);
	params_set(&l.caller, "N", "16", NULL);
	params_set(&l.caller, "M", "2", NULL);
	params_set(&l.defaults, "N", "1024", NULL);
	params_set(&l.defaults, "M", "1", NULL);
	params_set(&l.defaults, "K", "3", NULL);
	ck_assert_str_eq(scope_get(&l.sc, "N")->value, "8");
	ck_assert_str_eq(scope_get(&l.sc, "M")->value, "2");
	ck_assert_str_eq(scope_get(&l.sc, "K")->value, "3");
	ck_assert_ptr_null(scope_get(&l.sc, "Z"));
	ck_assert_int_eq(scope_eval(&l.sc, "N*M+K", &v, &e), 0);
	ck_assert_int_eq(v, 8 * 2 + 3);
	layers_free(&l);
}
END_TEST

START_TEST(test_scope_values_are_expressions_over_the_whole_scope)
{
	struct layers l;
	long long v;
	struct cs_err e;

	layers_init(&l);
	/* The default's formula sees the caller's N, not the default N. */
	params_set(&l.defaults, "N", "1024", NULL);
	params_set(&l.defaults, "HALF", "N/2", NULL);
	params_set(&l.defaults, "LOG", "log2(HALF)", NULL);
	params_set(&l.caller, "N", "64", NULL);
	ck_assert_int_eq(scope_eval(&l.sc, "HALF", &v, &e), 0);
	ck_assert_int_eq(v, 32);
	ck_assert_int_eq(scope_eval(&l.sc, "LOG + HALF", &v, &e), 0);
	ck_assert_int_eq(v, 5 + 32);
	layers_free(&l);
}
END_TEST

START_TEST(test_scope_self_reference_is_an_error)
{
	struct layers l;
	long long v;
	struct cs_err e;

	layers_init(&l);
	params_set(&l.exe, "N", "N+1", NULL);
	ck_assert_int_eq(scope_eval(&l.sc, "N*2", &v, &e), -1);
	ck_assert_str_eq(e.msg, "parameter 'N' refers to itself");
	params_set(&l.caller, "A", "B*2", NULL);
	params_set(&l.defaults, "B", "C+1", NULL);
	params_set(&l.defaults, "C", "A", NULL);
	ck_assert_int_eq(scope_eval(&l.sc, "1+A", &v, &e), -1);
	ck_assert_str_eq(e.msg, "parameter 'A' refers to itself (A -> B -> C -> A)");
	ck_assert_int_eq(scope_eval(&l.sc, "C", &v, &e), -1);
	ck_assert_str_eq(e.msg, "parameter 'C' refers to itself (C -> A -> B -> C)");
	layers_free(&l);
}
END_TEST

START_TEST(test_scope_unknown_parameter_names_the_one_that_uses_it)
{
	struct layers l;
	long long v;
	struct cs_err e;

	layers_init(&l);
	params_set(&l.defaults, "N", "M*2", "fft.xml:4");
	params_set(&l.defaults, "K", "N+1", NULL);
	params_set(&l.caller, "D", "Q", NULL);
	ck_assert_int_eq(scope_eval(&l.sc, "Q+1", &v, &e), -1);
	ck_assert_str_eq(e.msg, "unknown parameter 'Q' in 'Q+1'");
	ck_assert_int_eq(scope_eval(&l.sc, "K", &v, &e), -1);
	ck_assert_str_eq(e.msg, "parameter 'N' (fft.xml:4): unknown parameter 'M' in 'M*2'");
	ck_assert_int_eq(scope_eval(&l.sc, "D", &v, &e), -1);
	ck_assert_str_eq(e.msg, "parameter 'D': 'Q' is not a number, nor the name of a parameter");
	layers_free(&l);
}
END_TEST

START_TEST(test_scope_long_chains_evaluate_until_the_limit)
{
	struct params ps = PARAMS_INIT;
	struct scope sc;
	char name[16], value[32];
	long long v;
	struct cs_err e;

	/* P0 = P1+1, P1 = P2+1, ..., P99 = 0: P(k) is 99-k. */
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "P%d", i);
		if (i == 99)
			snprintf(value, sizeof(value), "0");
		else
			snprintf(value, sizeof(value), "P%d+1", i + 1);
		params_set(&ps, name, value, NULL);
	}
	scope_init(&sc);
	scope_push(&sc, &ps);
	ck_assert_int_eq(scope_eval(&sc, "P50", &v, &e), 0);
	ck_assert_int_eq(v, 49);
	ck_assert_int_eq(scope_eval(&sc, "P0", &v, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "parameters refer to one another"));
	params_free(&ps);
}
END_TEST

START_TEST(test_scope_eval_range)
{
	struct params ps = PARAMS_INIT;
	struct scope sc;
	long long v = 0;
	struct cs_err e;

	params_set(&ps, "N", "-3", NULL);
	scope_init(&sc);
	scope_push(&sc, &ps);
	ck_assert_int_eq(scope_eval_range(&sc, "N", "count of 'x'", 1, 100, &v, &e), -1);
	ck_assert_str_eq(e.msg, "count of 'x' is -3: it must be at least 1");
	ck_assert_int_eq(scope_eval_range(&sc, "N*-50", "count of 'x'", 1, 100, &v, &e), -1);
	ck_assert_str_eq(e.msg, "count of 'x' is 150: it must be at most 100");
	ck_assert_int_eq(scope_eval_range(&sc, "N/0", "count of 'x'", 1, 100, &v, &e), -1);
	ck_assert_str_eq(e.msg, "count of 'x': division by zero in 'N/0'");
	ck_assert_int_eq(scope_eval_range(&sc, "N*-1", "count of 'x'", 1, 100, &v, &e), 0);
	ck_assert_int_eq(v, 3);
	params_free(&ps);
}
END_TEST

START_TEST(test_scope_append_adds_weaker_layers)
{
	struct params a = PARAMS_INIT, b = PARAMS_INIT;
	struct scope strong, weak;

	params_set(&a, "N", "1", NULL);
	params_set(&b, "N", "2", NULL);
	params_set(&b, "M", "3", NULL);
	scope_init(&strong);
	scope_init(&weak);
	scope_push(&strong, &a);
	scope_push(&weak, &b);
	scope_append(&strong, &weak);
	ck_assert_uint_eq(strong.n, 2);
	ck_assert_str_eq(scope_get(&strong, "N")->value, "1");
	ck_assert_str_eq(scope_get(&strong, "M")->value, "3");
	for (int i = 0; i < 2 * SCOPE_MAX; i++)
		scope_push(&strong, &b);
	ck_assert_uint_eq(strong.n, SCOPE_MAX);
	params_free(&a);
	params_free(&b);
}
END_TEST

Suite *suite_params(void)
{
	Suite *s = suite_create("params");
	TCase *tc = tcase_create("params");

	tcase_add_test(tc, test_params_set_get_replace);
	tcase_add_test(tc, test_params_set_may_reuse_its_own_strings);
	tcase_add_test(tc, test_params_unset_keeps_the_others_in_order);
	tcase_add_test(tc, test_params_copy_is_deep);
	tcase_add_test(tc, test_param_name_valid);
	tcase_add_test(tc, test_scope_first_layer_wins);
	tcase_add_test(tc, test_scope_values_are_expressions_over_the_whole_scope);
	tcase_add_test(tc, test_scope_self_reference_is_an_error);
	tcase_add_test(tc, test_scope_unknown_parameter_names_the_one_that_uses_it);
	tcase_add_test(tc, test_scope_long_chains_evaluate_until_the_limit);
	tcase_add_test(tc, test_scope_eval_range);
	tcase_add_test(tc, test_scope_append_adds_weaker_layers);
	suite_add_tcase(s, tc);
	return s;
}

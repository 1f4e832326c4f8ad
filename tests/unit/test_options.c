/* The builtins' option parser (cmd/options.h): where options may stand, how values are
 * given, and the one-line errors. */
#include <stdlib.h>
#include <string.h>

#include "util/options.h"
#include "suites.h"

struct args {
	bool json;
	const char *gpu;
	unsigned threads;
	unsigned long long steps;
	double share;
	double tdp;
	int sched;
};

static const char *const scheds[] = {"logfit", "static", "gpu", NULL};

static const struct opt opts[] = {
        OPT_FLAG("--json", struct args, json, "one JSON line"),
        OPT_STRING("--gpu", struct args, gpu, "G", "the GPU"),
        OPT_STRING("-o", struct args, gpu, "DIR", "a short one"),
        OPT_UINT("--threads", struct args, threads, "N", 64, "threads"),
        OPT_UINT("--steps", struct args, steps, "S", 1e9, "steps"),
        OPT_PERCENT("--share", struct args, share, "P", "a share"),
        OPT_REAL("--tdp", struct args, tdp, "W", 1000, "watts"),
        OPT_CHOICE("--sched", struct args, sched, "S", scheds, "a scheduler"),
        OPT_END,
};

static const struct opt_cmd spec = {.name = "demo",
                                    .usage = "demo [OPTIONS] FILE...",
                                    .about = "About.",
                                    .opts = opts,
                                    .min = 0,
                                    .max = OPT_ANY};

/* Parse a NULL-terminated list of words; the operands joined by spaces go to joined. */
static int parse(const struct opt_cmd *oc, struct args *a, char *joined, struct cs_err *e,
                 const char **words)
{
	char **ops;
	int argc = 0, n;

	while (words[argc])
		argc++;
	memset(a, 0, sizeof(*a));
	joined[0] = '\0';
	n = opt_parse(oc, a, argc, (char **)words, &ops, e);
	for (int i = 0; i < n; i++) {
		strcat(joined, i ? " " : "");
		strcat(joined, ops[i]);
	}
	if (n >= 0)
		ck_assert_ptr_null(ops[n]);
	free(ops);
	return n;
}

#define PARSE(a, joined, e, ...) parse(&spec, a, joined, e, (const char *[]){__VA_ARGS__, NULL})

START_TEST(test_options_anywhere_among_operands)
{
	struct args a;
	struct cs_err e;
	char ops[256];

	ck_assert_int_eq(PARSE(&a, ops, &e, "x.xml", "--json", "N=4", "--gpu", "cpu", "y=-"), 3);
	ck_assert_str_eq(ops, "x.xml N=4 y=-");
	ck_assert(a.json);
	ck_assert_str_eq(a.gpu, "cpu");
}
END_TEST

START_TEST(test_options_name_equals_value_is_name_value)
{
	struct args a;
	struct cs_err e;
	char ops[256];

	ck_assert_int_eq(PARSE(&a, ops, &e, "--gpu=a=b", "--threads=8", "f"), 1);
	ck_assert_str_eq(a.gpu, "a=b");
	ck_assert_uint_eq(a.threads, 8);
	ck_assert_int_eq(PARSE(&a, ops, &e, "-o", "dir", "f"), 1);
	ck_assert_str_eq(a.gpu, "dir");
	ck_assert_str_eq(ops, "f");
}
END_TEST

START_TEST(test_options_double_dash_ends_options_and_dash_is_an_operand)
{
	struct args a;
	struct cs_err e;
	char ops[256];

	ck_assert_int_eq(PARSE(&a, ops, &e, "-", "--", "--json", "--", "-x"), 4);
	ck_assert_str_eq(ops, "- --json -- -x");
	ck_assert(!a.json);
}
END_TEST

START_TEST(test_options_a_value_may_start_with_a_dash)
{
	struct args a;
	struct cs_err e;
	char ops[256];

	ck_assert_int_eq(PARSE(&a, ops, &e, "--gpu", "-1", "f"), 1);
	ck_assert_str_eq(a.gpu, "-1");
	ck_assert_int_eq(PARSE(&a, ops, &e, "--steps", "-1", "f"), -1);
	ck_assert_str_eq(e.msg,
	                 "demo: --steps '-1': expected a number above 0, at most 1000000000");
}
END_TEST

START_TEST(test_options_flag_given_a_value)
{
	struct args a;
	struct cs_err e;
	char ops[256];

	ck_assert_int_eq(PARSE(&a, ops, &e, "f", "--json=yes"), -1);
	ck_assert_str_eq(e.msg, "demo: --json takes no value; usage: demo [OPTIONS] FILE...");
}
END_TEST

START_TEST(test_options_missing_value)
{
	struct args a;
	struct cs_err e;
	char ops[256];
	struct opt_cmd needs = spec;

	ck_assert_int_eq(PARSE(&a, ops, &e, "f", "--gpu"), -1);
	ck_assert_str_eq(e.msg, "demo: missing value after '--gpu'; usage: demo [OPTIONS] FILE...");
	needs.flags = OPT_SAY_NEEDS_VALUE;
	ck_assert_int_eq(parse(&needs, &a, ops, &e, (const char *[]){"-o", NULL}), -1);
	ck_assert_str_eq(e.msg, "demo: -o needs a value; usage: demo [OPTIONS] FILE...");
}
END_TEST

START_TEST(test_options_unknown_option_named_without_its_value)
{
	struct args a;
	struct cs_err e;
	char ops[256];

	ck_assert_int_eq(PARSE(&a, ops, &e, "f", "--fast=1"), -1);
	ck_assert_str_eq(e.msg, "demo: unknown option '--fast'; usage: demo [OPTIONS] FILE...");
	ck_assert_int_eq(PARSE(&a, ops, &e, "-x", "f"), -1);
	ck_assert_str_eq(e.msg, "demo: unknown option '-x'; usage: demo [OPTIONS] FILE...");
}
END_TEST

START_TEST(test_options_help_anywhere)
{
	struct args a;
	struct cs_err e;
	char ops[256];

	ck_assert_int_eq(PARSE(&a, ops, &e, "f", "--help", "--bogus"), OPT_HELP);
	ck_assert_int_eq(PARSE(&a, ops, &e, "--", "--help"), 1);
}
END_TEST

START_TEST(test_options_stop_at_operand_leaves_the_command_its_options)
{
	struct args a;
	struct cs_err e;
	char ops[256];
	struct opt_cmd stop = spec;

	stop.flags = OPT_STOP_AT_OPERAND;
	ck_assert_int_eq(
	        parse(&stop, &a, ops, &e, (const char *[]){"--json", "run", "--json", "x", NULL}),
	        3);
	ck_assert_str_eq(ops, "run --json x");
	ck_assert(a.json);
}
END_TEST

START_TEST(test_options_operand_count_after_the_options)
{
	struct args a;
	struct cs_err e;
	char ops[256];
	struct opt_cmd one = spec;

	one.min = 1;
	one.max = 1;
	ck_assert_int_eq(parse(&one, &a, ops, &e, (const char *[]){"--json", "f", NULL}), 1);
	ck_assert_str_eq(ops, "f");
	ck_assert_int_eq(parse(&one, &a, ops, &e, (const char *[]){NULL}), -1);
	ck_assert_str_eq(e.msg, "usage: demo [OPTIONS] FILE...");
	ck_assert_int_eq(parse(&one, &a, ops, &e, (const char *[]){"--json", NULL}), -1);
	ck_assert_str_eq(e.msg, "usage: demo [OPTIONS] FILE...");
	ck_assert_int_eq(parse(&one, &a, ops, &e, (const char *[]){"f", "g", NULL}), -1);
	ck_assert_str_eq(e.msg, "usage: demo [OPTIONS] FILE...");
	one.operand = "file";
	ck_assert_int_eq(parse(&one, &a, ops, &e, (const char *[]){"--json", NULL}), -1);
	ck_assert_str_eq(e.msg, "demo: no file given; usage: demo [OPTIONS] FILE...");
	ck_assert_int_eq(parse(&one, &a, ops, &e, (const char *[]){"f", "--json", "g", NULL}), -1);
	ck_assert_str_eq(e.msg,
	                 "demo: one file at a time, not also 'g'; usage: demo [OPTIONS] FILE...");
	/* No words at all is the plain usage, as for a builtin typed alone. */
	ck_assert_int_eq(parse(&one, &a, ops, &e, (const char *[]){NULL}), -1);
	ck_assert_str_eq(e.msg, "usage: demo [OPTIONS] FILE...");
}
END_TEST

START_TEST(test_options_negative_number_and_every_word_without_options)
{
	struct args a;
	struct cs_err e;
	char ops[256];
	struct opt_cmd none = spec;

	ck_assert_int_eq(PARSE(&a, ops, &e, "-1", "--json"), 1);
	ck_assert_str_eq(ops, "-1");
	ck_assert(a.json);
	none.opts = NULL;
	ck_assert_int_eq(parse(&none, &a, ops, &e, (const char *[]){"--json", "--", "-x", NULL}),
	                 3);
	ck_assert_str_eq(ops, "--json -- -x");
	ck_assert(!a.json);
}
END_TEST

START_TEST(test_options_uint_range)
{
	struct args a;
	struct cs_err e;
	char ops[256];
	unsigned long long n;

	ck_assert_int_eq(PARSE(&a, ops, &e, "--threads", "64", "--steps", "1000000000"), 0);
	ck_assert_uint_eq(a.threads, 64);
	ck_assert_uint_eq(a.steps, 1000000000ULL);
	ck_assert_int_eq(PARSE(&a, ops, &e, "--threads", "65"), -1);
	ck_assert_str_eq(e.msg, "demo: --threads '65': expected a number above 0, at most 64");
	ck_assert_int_eq(PARSE(&a, ops, &e, "--threads", "0"), -1);
	ck_assert_int_eq(PARSE(&a, ops, &e, "--threads", "2.5"), -1);
	ck_assert_str_eq(e.msg, "demo: --threads '2.5': expected a whole number");
	ck_assert_int_eq(opt_uint("1", 1, &n, &e), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(opt_uint("", 10, &n, &e), -1);
	ck_assert_int_eq(opt_uint("+3", 10, &n, &e), -1);
	ck_assert_int_eq(opt_uint("99999999999999999999999", 1e30, &n, &e), -1);
}
END_TEST

START_TEST(test_options_real_and_percent_ranges)
{
	struct args a;
	struct cs_err e;
	char ops[256];
	double x;

	ck_assert_int_eq(PARSE(&a, ops, &e, "--share", "50%", "--tdp", "1000"), 0);
	ck_assert_double_eq_tol(a.share, 0.5, 1e-12);
	ck_assert_double_eq(a.tdp, 1000);
	ck_assert_int_eq(opt_percent("0", &x, &e), 0);
	ck_assert_double_eq(x, 0);
	ck_assert_int_eq(opt_percent("100", &x, &e), 0);
	ck_assert_double_eq(x, 1);
	ck_assert_int_eq(opt_percent("100.5", &x, &e), -1);
	ck_assert_str_eq(e.msg, "expected a percentage from 0 to 100");
	ck_assert_int_eq(opt_percent("5%%", &x, &e), -1);
	ck_assert_int_eq(PARSE(&a, ops, &e, "--tdp", "0"), -1);
	ck_assert_str_eq(e.msg, "demo: --tdp '0': expected a number above 0, at most 1000");
	ck_assert_int_eq(opt_real("1000.5", 1000, &x, &e), -1);
}
END_TEST

START_TEST(test_options_choice_names_every_choice)
{
	struct args a;
	struct cs_err e;
	char ops[256];

	ck_assert_int_eq(PARSE(&a, ops, &e, "--sched", "gpu"), 0);
	ck_assert_int_eq(a.sched, 2);
	ck_assert_int_eq(PARSE(&a, ops, &e, "--sched=fast"), -1);
	ck_assert_str_eq(e.msg, "demo: --sched 'fast': expected logfit, static or gpu");
}
END_TEST

START_TEST(test_options_argv_is_left_as_it_was)
{
	struct args a;
	struct cs_err e;
	char ops[256];
	const char *words[] = {"f", "--json", "g", NULL};

	ck_assert_int_eq(parse(&spec, &a, ops, &e, words), 2);
	ck_assert_str_eq(words[0], "f");
	ck_assert_str_eq(words[1], "--json");
	ck_assert_str_eq(words[2], "g");
}
END_TEST

START_TEST(test_options_help_lists_every_option)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	opt_help(f, &spec);
	fclose(f);
	ck_assert(strncmp(text, "usage: demo [OPTIONS] FILE...\nAbout.\n", 37) == 0);
	for (const struct opt *o = opts; o->name; o++) {
		char line[64];

		snprintf(line, sizeof(line), "\n  %s ", o->name);
		ck_assert_msg(strstr(text, line), "--help lacks %s: %s", o->name, text);
	}
	free(text);
}
END_TEST

Suite *suite_options(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_options_anywhere_among_operands);
	tcase_add_test(tc, test_options_name_equals_value_is_name_value);
	tcase_add_test(tc, test_options_double_dash_ends_options_and_dash_is_an_operand);
	tcase_add_test(tc, test_options_a_value_may_start_with_a_dash);
	tcase_add_test(tc, test_options_flag_given_a_value);
	tcase_add_test(tc, test_options_missing_value);
	tcase_add_test(tc, test_options_unknown_option_named_without_its_value);
	tcase_add_test(tc, test_options_help_anywhere);
	tcase_add_test(tc, test_options_stop_at_operand_leaves_the_command_its_options);
	tcase_add_test(tc, test_options_operand_count_after_the_options);
	tcase_add_test(tc, test_options_negative_number_and_every_word_without_options);
	tcase_add_test(tc, test_options_uint_range);
	tcase_add_test(tc, test_options_real_and_percent_ranges);
	tcase_add_test(tc, test_options_choice_names_every_choice);
	tcase_add_test(tc, test_options_argv_is_left_as_it_was);
	tcase_add_test(tc, test_options_help_lists_every_option);
	suite_add_tcase(s, tc);
	return s;
}

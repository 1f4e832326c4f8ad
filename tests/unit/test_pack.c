/*
 * Unit tests of pack (004 §5.3): the OpenCL C scanner that turns kernels into functions of
 * one merged kernel, and the literals it writes. tests/shell/pack.sh runs whole flows.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pack/clsrc.h"
#include "pack/pack.h"

static struct cl_src *parse(const char *text)
{
	struct cl_src *s;
	struct cs_err e;

	ck_assert_msg(clsrc_parse(text, "t.cl", &s, &e) == 0, "parse failed: %s", e.msg);
	return s;
}

static char *rewrite(const char *text, bool range)
{
	struct cl_src *s = parse(text);
	struct cl_rename map[16];
	char *names[16];
	size_t n = 0;
	char *out;

	for (size_t i = 0; i < s->nfns && n < 16; i++) {
		names[n] = malloc(strlen(s->fns[i].name) + 8);
		strcpy(names[n], s->fns[i].name);
		if (s->fns[i].kernel)
			strcat(names[n], "__step");
		map[n] = (struct cl_rename){s->fns[i].name, names[n]};
		n++;
	}
	out = clsrc_rewrite(s, map, n, range);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	clsrc_free(s);
	return out;
}

#define assert_has(text, what)   ck_assert_msg(strstr(text, what), "'%s' not in:\n%s", what, text)
#define assert_lacks(text, what) ck_assert_msg(!strstr(text, what), "'%s' is in:\n%s", what, text)

START_TEST(test_kernel_becomes_static_function)
{
	char *out = rewrite("__kernel void scale(__global float *x, const float a)\n"
	                    "{ x[get_global_id(0)] *= a; }\n",
	                    false);

	assert_has(out, "static void scale__step(__global float *x, const float a)");
	assert_lacks(out, "__kernel");
	assert_has(out, "x[get_global_id(0)] *= a;");
	free(out);
}
END_TEST

START_TEST(test_comments_and_strings_are_not_code)
{
	const char *text = "/* __kernel void fake(int x) { } */\n"
	                   "// kernel void other(void)\n"
	                   "#define NAME \"kernel void k(\"\n"
	                   "kernel void real(__global int *y) { y[0] = 1; }\n";
	struct cl_src *s = parse(text);
	char *out;

	ck_assert_uint_eq(s->nfns, 1);
	ck_assert_str_eq(s->fns[0].name, "real");
	ck_assert(s->fns[0].kernel);
	ck_assert_ptr_null(clsrc_kernel(s, "fake"));
	clsrc_free(s);
	out = rewrite(text, false);
	assert_has(out, "/* __kernel void fake(int x) { } */");
	assert_has(out, "static void real__step(__global int *y)");
	free(out);
}
END_TEST

START_TEST(test_range_goes_through_every_function)
{
	char *out = rewrite("static size_t gid(void) { return get_global_id(0); }\n"
	                    "static float f(float a, float b);\n"
	                    "static float f(float a, float b) { return a + b + gid(); }\n"
	                    "#define F(a) f((a), 1.0f)\n"
	                    "__kernel void k(__global float *y) { y[gid()] = F(2.0f); }\n",
	                    true);

	assert_has(out, "static size_t gid(const pk_range pk_r)");
	assert_has(out, "static float f(const pk_range pk_r, float a, float b);");
	assert_has(out, "a + b + gid(pk_r)");
	assert_has(out, "#define F(a) f(pk_r, (a), 1.0f)");
	assert_has(out, "static void k__step(const pk_range pk_r, __global float *y)");
	assert_has(out, "y[gid(pk_r)]");
	free(out);
}
END_TEST

START_TEST(test_a_macro_named_like_a_function_is_not_a_call)
{
	char *out = rewrite("#define g(x) ((x) + 1)\n"
	                    "static int g2(int x) { return x; }\n"
	                    "__kernel void k(__global int *y) { y[0] = g2(g(1)); }\n",
	                    true);

	assert_has(out, "#define g(x) ((x) + 1)");
	assert_has(out, "g2(pk_r, g(1))");
	free(out);
}
END_TEST

START_TEST(test_kernel_parameters)
{
	struct cl_src *s = parse("__kernel void k(__global const float *restrict x, "
	                         "__constant int *c, const int n, __local float *t, global "
	                         "float4 *v) {}\n");
	const struct cl_fn *f = clsrc_kernel(s, "k");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->nparams, 5);
	ck_assert_str_eq(f->params[0].name, "x");
	ck_assert_str_eq(f->params[0].type, "__global const float *restrict");
	ck_assert(f->params[0].pointer);
	ck_assert_int_eq(f->params[0].space, CS_GLOBAL);
	ck_assert_int_eq(f->params[1].space, CS_CONSTANT);
	ck_assert(!f->params[2].pointer);
	ck_assert_str_eq(f->params[2].type, "const int");
	ck_assert_int_eq(f->params[3].space, CS_LOCAL);
	ck_assert_int_eq(f->params[4].space, CS_GLOBAL);
	clsrc_free(s);
}
END_TEST

START_TEST(test_constant_parameters_become_global_const)
{
	char *out = rewrite("__kernel void k(__constant float *w, __global float *y) "
	                    "{ y[0] = w[0]; }\n",
	                    false);

	assert_has(out, "static void k__step(__global const float *w, __global float *y)");
	free(out);
}
END_TEST

START_TEST(test_kernel_attributes_are_dropped)
{
	char *out = rewrite("__kernel __attribute__((reqd_work_group_size(8, 1, 1))) void "
	                    "k(__global int *y) { y[0] = 0; }\n",
	                    false);

	assert_lacks(out, "reqd_work_group_size");
	assert_has(out, "void k__step(__global int *y)");
	free(out);
}
END_TEST

START_TEST(test_work_group_features_are_found_through_calls)
{
	struct cl_src *s = parse("static void sync_all(void) { barrier(CLK_LOCAL_MEM_FENCE); }\n"
	                         "static int plain(int x) { return x; }\n"
	                         "__kernel void uses(__global int *y) { sync_all(); y[0] = 1; }\n"
	                         "__kernel void clean(__global int *y) { y[0] = plain(2); }\n"
	                         "__kernel void ids(__global int *y) { y[get_local_id(0)] = 0; "
	                         "}\n");
	char buf[256];

	ck_assert(clsrc_group_feature(s, "uses", buf, sizeof(buf)));
	assert_has(buf, "barrier");
	assert_has(buf, "sync_all");
	ck_assert(!clsrc_group_feature(s, "clean", buf, sizeof(buf)));
	ck_assert(clsrc_group_feature(s, "ids", buf, sizeof(buf)));
	assert_has(buf, "get_local_id");
	clsrc_free(s);
}
END_TEST

START_TEST(test_local_parameters_and_variables)
{
	struct cl_src *s =
	        parse("__kernel void p(__global int *y, __local int *t) { y[0] = t[0]; }\n"
	              "__kernel void v(__global int *y)\n{\n\t__local int t[8];\n"
	              "\ty[0] = t[0];\n}\n");
	char buf[256];
	int line = 0;

	ck_assert(clsrc_group_feature(s, "p", buf, sizeof(buf)));
	assert_has(buf, "__local parameter 't'");
	ck_assert(!clsrc_local_variable(s, "p", &line));
	ck_assert(clsrc_local_variable(s, "v", &line));
	ck_assert_int_eq(line, 4);
	clsrc_free(s);
}
END_TEST

START_TEST(test_names_a_source_defines)
{
	struct cl_src *s = parse("#define TILE 16\n"
	                         "typedef struct { float re, im; } cplx;\n"
	                         "struct node { int next; };\n"
	                         "enum mode { LOW, HIGH = 2 };\n"
	                         "__constant float weights[3] = {1, 2, 1};\n"
	                         "static float f(float x) { return x; }\n");
	const char *want[] = {"cplx", "node", "mode", "LOW", "HIGH", "weights"};

	ck_assert_uint_eq(s->macros.n, 1);
	ck_assert_str_eq(s->macros.v[0], "TILE");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		bool found = false;

		for (size_t k = 0; k < s->globals.n; k++)
			found |= strcmp(s->globals.v[k], want[i]) == 0;
		ck_assert_msg(found, "'%s' not among the source's names", want[i]);
	}
	ck_assert(clsrc_defines_fn(s, "f"));
	ck_assert(!clsrc_defines_fn(s, "weights"));
	clsrc_free(s);
}
END_TEST

START_TEST(test_reserved_prefix_is_found)
{
	struct cl_src *s = parse("\n__kernel void k(__global int *pk_y) { pk_y[0] = 0; }\n");
	char buf[64];
	int line = 0;

	ck_assert_ptr_nonnull(clsrc_find_prefix(s, "pk_", &line, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "pk_y");
	ck_assert_int_eq(line, 2);
	clsrc_free(s);
}
END_TEST

START_TEST(test_unterminated_comment_is_an_error)
{
	struct cl_src *s;
	struct cs_err e;

	ck_assert_int_eq(clsrc_parse("int x;\n/* open\n\n", "bad.cl", &s, &e), -1);
	ck_assert_str_eq(e.msg, "bad.cl:2: unterminated comment");
	ck_assert_int_eq(clsrc_parse("kernel void k() { }}\n", "bad.cl", &s, &e), -1);
	assert_has(e.msg, "unbalanced");
}
END_TEST

START_TEST(test_literals_are_exact)
{
	struct cs_type i1 = {SC_INT, 1}, f1 = {SC_FLOAT, 1}, f4 = {SC_FLOAT, 4};
	struct cs_type u1 = {SC_UCHAR, 1}, l1 = {SC_LONG, 1};
	int i = -5;
	float f = 1.0f, v[4] = {0.5f, -2.0f, 0.0f, 1.0f};
	unsigned char u = 200;
	long long l = -9223372036854775807LL - 1;
	char *s;

	s = pack_literal(i1, (unsigned char *)&i);
	ck_assert_str_eq(s, "(int)(-5)");
	free(s);
	s = pack_literal(f1, (unsigned char *)&f);
	ck_assert_str_eq(s, "as_float(0x3f800000u)");
	free(s);
	s = pack_literal(f4, (unsigned char *)v);
	ck_assert_str_eq(s, "(float4)(as_float(0x3f000000u), as_float(0xc0000000u), "
	                    "as_float(0x00000000u), as_float(0x3f800000u))");
	free(s);
	s = pack_literal(u1, &u);
	ck_assert_str_eq(s, "(uchar)200u");
	free(s);
	s = pack_literal(l1, (unsigned char *)&l);
	ck_assert_str_eq(s, "(long)(-9223372036854775807L - 1)");
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pack");
	TCase *tc = tcase_create("clsrc");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_kernel_becomes_static_function);
	tcase_add_test(tc, test_comments_and_strings_are_not_code);
	tcase_add_test(tc, test_range_goes_through_every_function);
	tcase_add_test(tc, test_a_macro_named_like_a_function_is_not_a_call);
	tcase_add_test(tc, test_kernel_parameters);
	tcase_add_test(tc, test_constant_parameters_become_global_const);
	tcase_add_test(tc, test_kernel_attributes_are_dropped);
	tcase_add_test(tc, test_work_group_features_are_found_through_calls);
	tcase_add_test(tc, test_local_parameters_and_variables);
	tcase_add_test(tc, test_names_a_source_defines);
	tcase_add_test(tc, test_reserved_prefix_is_found);
	tcase_add_test(tc, test_unterminated_comment_is_an_error);
	tcase_add_test(tc, test_literals_are_exact);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The FlowModel and CarshExe readers and the planner, on documents held in memory. */
#include <stdlib.h>
#include <string.h>

#include "model/exe.h"
#include "model/planner.h"
#include "suites.h"

static struct cs_err err;

static struct flowmodel *fm_from(const char *text)
{
	struct xml_doc d;
	struct flowmodel *fm = NULL;

	err_clear(&err);
	if (xml_load_memory(text, strlen(text), "t.xml", &d, &err))
		return NULL;
	struct xml_ctx x = {d.file, d.dir, &err};
	flowmodel_from_node(&x, xmlDocGetRootElement(d.doc), &fm);
	xml_free(&d);
	return fm;
}

static struct exe *exe_from(const char *text)
{
	struct xml_doc d;
	struct exe *exe = NULL;

	err_clear(&err);
	if (xml_load_memory(text, strlen(text), "t.exe.xml", &d, &err))
		return NULL;
	struct xml_ctx x = {d.file, d.dir, &err};
	exe_from_node(&x, xmlDocGetRootElement(d.doc), &exe);
	xml_free(&d);
	return exe;
}

#define FM_HEAD                                                  \
	"<FlowModel name=\"t\"><Param name=\"N\" value=\"16\"/>" \
	"<Program><Source>__kernel void k(){}</Source><Kernel name=\"k\"/></Program>"
#define FM_ARGS                                                                        \
	"<Arguments><Constant name=\"a\" type=\"float4\" value=\"1,2,3,A\"/>"          \
	"<Input name=\"x\" type=\"float\" count=\"N\"/>"                               \
	"<InOut name=\"y\" type=\"float\" count=\"N\"/>"                               \
	"<Output name=\"z\" type=\"int2\" count=\"N\" partition=\"copy\" unit=\"2\"/>" \
	"<Local name=\"s\" type=\"double\" count=\"max(N,64)\"/></Arguments>"

START_TEST(test_flowmodel_reads_every_argument_kind)
{
	struct flowmodel *fm = fm_from(
	        FM_HEAD "<WorkSize global=\"N, 2\" local=\"4,max(1,2)\"/>" FM_ARGS "</FlowModel>");

	ck_assert_msg(fm != NULL, "%s", err.msg);
	ck_assert_str_eq(fm->name, "t");
	ck_assert_uint_eq(fm->dims, 2);
	ck_assert_str_eq(fm->global[1], "2");
	ck_assert_str_eq(fm->local[1], "max(1,2)");
	ck_assert_uint_eq(fm->nargs, 5);
	ck_assert_int_eq(fm->args[0].kind, ARG_CONSTANT);
	ck_assert_uint_eq(fm->args[0].type.width, 4);
	ck_assert_int_eq(fm->args[2].kind, ARG_INOUT);
	ck_assert_int_eq(fm->args[3].partition, PART_COPY);
	ck_assert_str_eq(fm->args[3].unit, "2");
	ck_assert_int_eq(fm->args[4].kind, ARG_LOCAL);
	ck_assert_int_eq(fm->args[1].partition, PART_COPY); /* inputs default to copy */
	ck_assert_int_eq(fm->args[2].partition, PART_BLOCK);
	ck_assert_str_eq(fm->build_options, "");
	flowmodel_free(fm);
}
END_TEST

static void expect_fm_error(const char *text, const char *msg)
{
	struct flowmodel *fm = fm_from(text);

	ck_assert_msg(fm == NULL, "accepted: %s", text);
	ck_assert_msg(strstr(err.msg, msg) != NULL, "'%s' lacks '%s'", err.msg, msg);
}

START_TEST(test_flowmodel_errors_name_line_and_element)
{
	expect_fm_error(FM_HEAD "\n<WorkSize global=\"N\"/>\n<Arguments>\n<Input name=\"x\" "
	                        "type=\"flaot\" count=\"N\"/></Arguments></FlowModel>",
	                "t.xml:4: <Input name=\"x\">: unknown type 'flaot'");
	expect_fm_error(FM_HEAD "<WorkSize global=\"N\" locl=\"2\"/></FlowModel>",
	                "t.xml:1: <WorkSize>: unknown attribute 'locl' (allowed: global local)");
	expect_fm_error(FM_HEAD "<WorkSize global=\"1,2,3,4\"/></FlowModel>",
	                "global= takes 1 to 3 comma-separated expressions");
	expect_fm_error(FM_HEAD "<WorkSize global=\"4,4\" local=\"2\"/></FlowModel>",
	                "global has 2 dimensions but local has 1");
	expect_fm_error(FM_HEAD "</FlowModel>", "missing <WorkSize global=\"...\"/>");
	expect_fm_error("<FlowModel><WorkSize global=\"1\"/></FlowModel>", "missing <Program>");
	expect_fm_error(FM_HEAD "<WorkSize global=\"N\"/><Arguments><Local name=\"s\" "
	                        "type=\"int\"/></Arguments></FlowModel>",
	                "<Local name=\"s\">: missing attribute 'count'");
	expect_fm_error(FM_HEAD "<WorkSize global=\"N\"/><Arguments><Input name=\"x\" type=\"int\" "
	                        "count=\"1\" partition=\"half\"/></Arguments></FlowModel>",
	                "partition must be 'block' or 'copy', not 'half'");
	expect_fm_error("<FlowModel><RuntimeType>CUDA</RuntimeType></FlowModel>",
	                "unsupported runtime 'CUDA' (carsh runs OpenCL)");
	expect_fm_error("<FlowModel><RuntimeType device=\"fpga\">OpenCL</RuntimeType></FlowModel>",
	                "unknown device 'fpga'");
	expect_fm_error("<FlowModel><Program><Source>  </Source></Program></FlowModel>",
	                "the kernel source is empty");
	expect_fm_error("<FlowModel><Param name=\"9N\" value=\"1\"/></FlowModel>",
	                "'9N' is not a valid parameter name");
	expect_fm_error("<FlowModel><Param name=\"N\" value=\"1\"/><Param name=\"N\" value=\"2\"/>"
	                "</FlowModel>",
	                "parameter 'N' is set twice (first at t.xml:1)");
	expect_fm_error("<FlowModel><WorkSize global=\"1\"/><WorkSize global=\"2\"/></FlowModel>",
	                "given twice (first at line 1)");
	expect_fm_error("<FlowModel>text</FlowModel>", "unexpected text inside this element");
	expect_fm_error("<FlowModel>\n<Bogus/></FlowModel>",
	                "t.xml:2: unknown element <Bogus> in <FlowModel>");
}
END_TEST

START_TEST(test_malformed_xml_names_the_line)
{
	struct xml_doc d;

	ck_assert_int_eq(xml_load_memory("<a>\n<b>\n</a>", 13, "m.xml", &d, &err), -1);
	ck_assert_msg(strstr(err.msg, "m.xml:3: malformed XML:") != NULL, "%s", err.msg);
}
END_TEST

START_TEST(test_split_top_level_keeps_function_arguments)
{
	char *p[3];

	ck_assert_int_eq(split_top_level(" max(a,b) , N*2,1", p, 3), 3);
	ck_assert_str_eq(p[0], "max(a,b)");
	ck_assert_str_eq(p[1], "N*2");
	ck_assert_str_eq(p[2], "1");
	for (int i = 0; i < 3; i++)
		free(p[i]);
	ck_assert_int_eq(split_top_level("1,2,3,4", p, 3), -1);
	ck_assert_int_eq(split_top_level("1,,2", p, 3), -1);
}
END_TEST

#define EXE_HEAD                                                            \
	"<CarshExe>" FM_HEAD "<WorkSize global=\"N\" local=\"L\"/>" FM_ARGS \
	"<Param name=\"A\" value=\"9\"/><Param name=\"L\" value=\"4\"/></FlowModel>"
#define EXE_BINDS                                                   \
	"<Input name=\"x\"><Fill value=\"N\"/></Input>"             \
	"<InOut name=\"y\"><DataFile>data/y.csv</DataFile></InOut>" \
	"<Output name=\"z\"><DataFile columns=\"N/4\">-</DataFile></Output>"

static struct job_plan *plan_with(struct exe *exe, const char *caller_n)
{
	struct params caller = PARAMS_INIT;
	struct scope sc;
	struct plan_env env = {&sc, "cpu", NULL, NULL, false};
	struct job_plan *jp = NULL;

	scope_init(&sc);
	if (caller_n)
		params_set(&caller, "N", caller_n, "test");
	scope_push(&sc, &caller);
	err_clear(&err);
	plan_exe(exe, &env, &jp, &err);
	params_free(&caller);
	return jp;
}

START_TEST(test_plan_evaluates_in_the_design_scope)
{
	struct exe *exe = exe_from(EXE_HEAD EXE_BINDS "<Param name=\"A\" value=\"7\"/></CarshExe>");
	struct job_plan *jp;
	const float *a;

	ck_assert_msg(exe != NULL, "%s", err.msg);
	jp = plan_with(exe, "32"); /* the caller's N beats the flow-model's 16 */
	ck_assert_msg(jp != NULL, "%s", err.msg);
	ck_assert_uint_eq(jp->kp.global[0], 32);
	ck_assert_uint_eq(jp->kp.local[0], 4);
	ck_assert(jp->kp.has_local);
	a = (const float *)jp->kp.args[0].value; /* A: the executable's 7 beats the default 9 */
	ck_assert(a[0] == 1.0f && a[1] == 2.0f && a[2] == 3.0f && a[3] == 7.0f);
	ck_assert_uint_eq(jp->kp.args[1].count, 32);
	ck_assert_uint_eq(jp->kp.args[3].count, 32);
	ck_assert_uint_eq(jp->kp.args[3].bytes, 32 * 8);
	ck_assert_uint_eq(jp->kp.args[4].bytes, 64 * 8);
	ck_assert_int_eq(jp->binds[1].how, BIND_FILL);
	ck_assert(*(const float *)jp->binds[1].fill == 32.0f);
	ck_assert_str_eq(jp->binds[2].path, "data/y.csv");
	ck_assert_uint_eq(jp->binds[3].columns, 8);
	ck_assert_str_eq(jp->kp.device_cli, "cpu");
	job_plan_free(jp);
	exe_free(exe);
}
END_TEST

START_TEST(test_plan_refuses_bad_sizes_and_pairs)
{
	struct exe *exe = exe_from(EXE_HEAD EXE_BINDS "</CarshExe>");
	struct job_plan *jp;

	ck_assert_msg(exe != NULL, "%s", err.msg);
	jp = plan_with(exe, "18"); /* 18 is not a multiple of L=4 */
	ck_assert(jp == NULL);
	ck_assert_msg(strstr(err.msg, "work size 18 is not divisible by local size 4") != NULL,
	              "%s", err.msg);
	jp = plan_with(exe, "0");
	ck_assert(jp == NULL);
	exe_free(exe);

	exe = exe_from(EXE_HEAD EXE_BINDS "<Swap count=\"3\"><SwapPair input=\"x\" output=\"z\"/>"
	                                  "</Swap></CarshExe>");
	ck_assert_msg(exe != NULL, "%s", err.msg);
	jp = plan_with(exe, NULL);
	ck_assert(jp == NULL);
	ck_assert_msg(strstr(err.msg, "'x' has 64 bytes but 'z' has 128; the streams of a pair "
	                              "must have the same size"),
	              "%s", err.msg);
	exe_free(exe);

	exe = exe_from(EXE_HEAD EXE_BINDS "<Swap count=\"N-1\" method=\"copy-host\">"
	                                  "<SwapPair input=\"x\" output=\"y\"/></Swap></CarshExe>");
	ck_assert_msg(exe != NULL, "%s", err.msg);
	jp = plan_with(exe, NULL);
	ck_assert_msg(jp != NULL, "%s", err.msg);
	ck_assert_int_eq(jp->kp.swap_count, 15);
	ck_assert_int_eq(jp->kp.swap_method, SWAP_COPY_HOST);
	ck_assert_uint_eq(jp->kp.npairs, 1);
	ck_assert_uint_eq(jp->kp.pairs[0].input, 1);
	ck_assert_uint_eq(jp->kp.pairs[0].output, 2);
	job_plan_free(jp);
	exe_free(exe);

	exe = exe_from(EXE_HEAD EXE_BINDS "<Swap count=\"1\"><SwapPair input=\"z\" output=\"y\"/>"
	                                  "</Swap></CarshExe>");
	ck_assert_msg(exe != NULL, "%s", err.msg);
	jp = plan_with(exe, NULL);
	ck_assert(jp == NULL);
	ck_assert_msg(strstr(err.msg, "input 'z' is an Output stream"), "%s", err.msg);
	exe_free(exe);
}
END_TEST

START_TEST(test_exe_binding_rules)
{
	struct exe *exe;

	/* Every stream may start filled: an InOut's and an Output's result is then dropped. */
	exe = exe_from(EXE_HEAD "<Input name=\"x\"><Fill value=\"0\"/></Input>"
	                        "<InOut name=\"y\"><Fill value=\"0\"/></InOut>"
	                        "<Output name=\"z\"><Fill value=\"0\"/></Output></CarshExe>");
	ck_assert_msg(exe != NULL, "%s", err.msg);
	exe_free(exe);
	exe = exe_from(EXE_HEAD EXE_BINDS
	               "<Input name=\"x\"><DataFile>a</DataFile></Input></CarshExe>");
	ck_assert(exe == NULL);
	ck_assert_msg(strstr(err.msg, "stream 'x' is bound twice"), "%s", err.msg);
	exe = exe_from(EXE_HEAD "<Input name=\"x\"><DataFile> </DataFile></Input></CarshExe>");
	ck_assert(exe == NULL);
	ck_assert_msg(strstr(err.msg, "empty file name"), "%s", err.msg);
	exe = exe_from(EXE_HEAD EXE_BINDS "<Swap count=\"1\" method=\"teleport\">"
	                                  "<SwapPair input=\"x\" output=\"z\"/></Swap></CarshExe>");
	ck_assert(exe == NULL);
	ck_assert_msg(strstr(err.msg, "unknown swap method 'teleport'"), "%s", err.msg);
	exe = exe_from("<CarshExe><Param name=\"N\" value=\"1\"/></CarshExe>");
	ck_assert(exe == NULL);
	ck_assert_msg(strstr(err.msg, "missing <FlowModel"), "%s", err.msg);
}
END_TEST

Suite *suite_xml(void)
{
	Suite *s = suite_create("xml");
	TCase *tc = tcase_create("readers");

	tcase_add_test(tc, test_flowmodel_reads_every_argument_kind);
	tcase_add_test(tc, test_flowmodel_errors_name_line_and_element);
	tcase_add_test(tc, test_malformed_xml_names_the_line);
	tcase_add_test(tc, test_split_top_level_keeps_function_arguments);
	tcase_add_test(tc, test_plan_evaluates_in_the_design_scope);
	tcase_add_test(tc, test_plan_refuses_bad_sizes_and_pairs);
	tcase_add_test(tc, test_exe_binding_rules);
	suite_add_tcase(s, tc);
	return s;
}

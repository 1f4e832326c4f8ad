/* The embedding API's meta-pipelines (004 §4.2.3-4.2.4): results against C, iteration
 * limits, INITONCE feedback, and every error of building, implementing and running. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "carsh.h"

#define N 256

Suite *suite_api_pipeline(void);

/* OUT = EXPR(v = IN[i], w = IN2[i]) over N floats; with two inputs when two is set. */
static carsh_flowmodel *stage(carsh_machine *m, const char *name, const char *expr, int two)
{
	char xml[1024];
	carsh_flowmodel *fm = NULL;

	snprintf(xml, sizeof(xml),
	         "<FlowModel name=\"%s\"><Param name=\"N\" value=\"%d\"/><Program><Source>"
	         "__kernel void k(__global const float *in, %s __global float *out)"
	         "{ size_t i = get_global_id(0); float v = in[i]; %s out[i] = %s; }</Source>"
	         "<Kernel name=\"k\"/></Program><WorkSize global=\"N\"/><Arguments>"
	         "<Input name=\"in\" type=\"float\" count=\"N\"/>%s"
	         "<Output name=\"out\" type=\"float\" count=\"N\"/></Arguments></FlowModel>",
	         name, N, two ? "__global const float *in2," : "", two ? "float w = in2[i];" : "",
	         expr, two ? "<Input name=\"in2\" type=\"float\" count=\"N\"/>" : "");
	ck_assert_msg(carsh_flowmodel_from_string(m, xml, name, &fm) == 0, "%s",
	              carsh_machine_last_error(m));
	return fm;
}

static carsh_machine *machine(void)
{
	carsh_machine *m = NULL;

	ck_assert_msg(carsh_machine_open(NULL, &m) == 0, "%s", carsh_machine_last_error(m));
	return m;
}

static void add(carsh_pipeline *p, carsh_machine *m, const char *name, const char *expr, int two)
{
	carsh_flowmodel *fm = stage(m, name, expr, two);

	ck_assert_msg(carsh_pipeline_add(p, name, fm) == 0, "%s", carsh_pipeline_last_error(p));
	carsh_flowmodel_free(fm);
}

static void expect_error(const carsh_pipeline *p, const char *want)
{
	const char *got = carsh_pipeline_last_error(p);

	ck_assert_msg(strstr(got, want) != NULL, "message '%s' lacks '%s'", got, want);
}

#define OK(call) ck_assert_msg((call) == 0, "%s", carsh_pipeline_last_error(p))

/* scale -> offset -> square, one item after another through the ports. */
START_TEST(test_three_stages_match_c_item_after_item)
{
	static float in[N], out[N];
	carsh_machine *m = machine();
	carsh_pipeline *p = NULL;
	int ent, ex, fresh = -1;

	OK(carsh_pipeline_new(m, &p));
	add(p, m, "scale", "2.0f * v", 0);
	add(p, m, "offset", "v + 1.0f", 0);
	add(p, m, "square", "v * v", 0);
	/* connected in an order other than the stages' */
	OK(carsh_pipeline_connect(p, "offset", "out", "square", "in", CARSH_PORT_INTERMEDIATE, 1,
	                          NULL));
	OK(carsh_pipeline_connect(p, "scale", "out", "offset", "in", CARSH_PORT_INTERMEDIATE, 1,
	                          NULL));
	OK(carsh_pipeline_entrance(p, "scale", "in", 1, &ent));
	OK(carsh_pipeline_exit(p, "square", "out", 1, &ex));
	OK(carsh_pipeline_implement(p));
	for (int item = 0; item < 3; item++) {
		for (int i = 0; i < N; i++)
			in[i] = (float)(i % 16 + item);
		OK(carsh_pipeline_send(p, ent, in, sizeof(in)));
		OK(carsh_pipeline_run(p, 1));
		OK(carsh_pipeline_receive(p, ex, out, sizeof(out), &fresh));
		ck_assert_int_eq(fresh, 1);
		for (int i = 0; i < N; i++)
			ck_assert(out[i] == (2.0f * in[i] + 1.0f) * (2.0f * in[i] + 1.0f));
	}
	OK(carsh_pipeline_receive(p, ex, out, sizeof(out), &fresh));
	ck_assert_int_eq(fresh, 0);
	carsh_pipeline_free(p);
	carsh_machine_free(m);
}
END_TEST

/* acc: out = in + in2, its output fed back to in2 (INITONCE, sent once): a running sum. */
START_TEST(test_initonce_feedback_sums_and_limits_count_runs)
{
	static float one[N], zero[N], out[N];
	carsh_machine *m = machine();
	carsh_pipeline *p = NULL;
	int ent, ex, init, fresh;

	for (int i = 0; i < N; i++)
		one[i] = (float)i, zero[i] = 0.0f;
	OK(carsh_pipeline_new(m, &p));
	add(p, m, "acc", "v + w", 1);
	OK(carsh_pipeline_connect(p, "acc", "out", "acc", "in2", CARSH_PORT_INITONCE, 1, &init));
	OK(carsh_pipeline_entrance(p, "acc", "in", 3, &ent)); /* data every 3 runs */
	OK(carsh_pipeline_exit(p, "acc", "out", 2, &ex));     /* taken every 2 runs */
	OK(carsh_pipeline_implement(p));
	ck_assert_int_eq(carsh_pipeline_run(p, 1), CARSH_E_STATE);
	expect_error(p, "iteration 1: port 0 (INITONCE acc.in2) waits for data");
	OK(carsh_pipeline_send(p, init, zero, sizeof(zero)));
	ck_assert_int_eq(carsh_pipeline_run(p, 1), CARSH_E_STATE);
	expect_error(p, "iteration 1: port 1 (ENTRANCE acc.in) waits for data");
	OK(carsh_pipeline_send(p, ent, one, sizeof(one))); /* the INITONCE data is still there */
	OK(carsh_pipeline_run(p, 1));
	OK(carsh_pipeline_receive(p, ex, out, sizeof(out), &fresh));
	ck_assert_int_eq(fresh, 0); /* one run: nothing taken yet */
	OK(carsh_pipeline_run(p, 2));
	OK(carsh_pipeline_receive(p, ex, out, sizeof(out), &fresh));
	ck_assert_int_eq(fresh, 1);
	for (int i = 0; i < N; i++) /* taken after run 2: in summed twice */
		ck_assert(out[i] == 2.0f * (float)i);
	ck_assert_int_eq(carsh_pipeline_run(p, 1), CARSH_E_STATE); /* run 4 needs data */
	expect_error(p, "iteration 4: port 1 (ENTRANCE acc.in) waits for data");
	OK(carsh_pipeline_send(p, ent, one, sizeof(one)));
	OK(carsh_pipeline_run(p, 1));
	OK(carsh_pipeline_receive(p, ex, out, sizeof(out), &fresh));
	for (int i = 0; i < N; i++) /* taken after run 4 */
		ck_assert(out[i] == 4.0f * (float)i);
	carsh_pipeline_free(p);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_building_errors_name_what_is_wrong)
{
	carsh_machine *m = machine();
	carsh_pipeline *p = NULL;
	carsh_flowmodel *fm = stage(m, "f", "v", 0);
	int port;

	OK(carsh_pipeline_new(m, &p));
	ck_assert_int_eq(carsh_pipeline_implement(p), CARSH_E_STATE);
	expect_error(p, "pipeline: no stage");
	ck_assert_int_eq(carsh_pipeline_add(p, "bad name", fm), CARSH_E_ARG);
	OK(carsh_pipeline_add(p, "a", fm));
	ck_assert_int_eq(carsh_pipeline_add(p, "a", fm), CARSH_E_ARG);
	expect_error(p, "a stage 'a' exists already");
	ck_assert_int_eq(carsh_pipeline_add(p, "x", NULL), CARSH_E_ARG);
	add(p, m, "b", "v", 0);
	ck_assert_int_eq(
	        carsh_pipeline_connect(p, "a", "out", "zz", "in", CARSH_PORT_INTERMEDIATE, 1, NULL),
	        CARSH_E_NAME);
	expect_error(p, "no stage 'zz'");
	ck_assert_int_eq(
	        carsh_pipeline_connect(p, "a", "in", "b", "in", CARSH_PORT_INTERMEDIATE, 1, NULL),
	        CARSH_E_NAME);
	expect_error(p, "stage 'a': stream 'in' is an Input, not an output");
	ck_assert_int_eq(
	        carsh_pipeline_connect(p, "a", "nope", "b", "in", CARSH_PORT_INTERMEDIATE, 1, NULL),
	        CARSH_E_NAME);
	expect_error(p, "no stream 'nope' (streams: in out)");
	ck_assert_int_eq(
	        carsh_pipeline_connect(p, "a", "out", "b", "in", CARSH_PORT_INTERMEDIATE, 0, NULL),
	        CARSH_E_ARG);
	expect_error(p, "iteration limit 0");
	ck_assert_int_eq(carsh_pipeline_connect(p, "a", "out", "b", "in", 7, 1, NULL), CARSH_E_ARG);
	OK(carsh_pipeline_connect(p, "a", "out", "b", "in", CARSH_PORT_INTERMEDIATE, 1, NULL));
	ck_assert_int_eq(carsh_pipeline_entrance(p, "b", "in", 1, &port), CARSH_E_ARG);
	expect_error(p, "input 'in' is fed already");
	ck_assert_int_eq(carsh_pipeline_implement(p), CARSH_E_STATE);
	expect_error(p, "no EXIT port");
	OK(carsh_pipeline_exit(p, "b", "out", 1, &port));
	ck_assert_int_eq(carsh_pipeline_run(p, 1), CARSH_E_STATE);
	expect_error(p, "not implemented");
	ck_assert_int_eq(carsh_pipeline_implement(p), CARSH_E_STATE);
	expect_error(p, "stage 'a': stream 'in' is not connected, not a port and not bound");
	carsh_pipeline_free(p);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_a_cycle_without_initonce_is_refused)
{
	carsh_machine *m = machine();
	carsh_pipeline *p = NULL;
	int port;

	OK(carsh_pipeline_new(m, &p));
	add(p, m, "a", "v + w", 1);
	add(p, m, "b", "v", 0);
	OK(carsh_pipeline_connect(p, "a", "out", "b", "in", CARSH_PORT_INTERMEDIATE, 1, NULL));
	OK(carsh_pipeline_connect(p, "b", "out", "a", "in2", CARSH_PORT_INTERMEDIATE, 1, NULL));
	OK(carsh_pipeline_entrance(p, "a", "in", 1, &port));
	OK(carsh_pipeline_exit(p, "b", "out", 1, &port));
	ck_assert_int_eq(carsh_pipeline_implement(p), CARSH_E_STATE);
	expect_error(p, "has no INITONCE connection");
	carsh_pipeline_free(p);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_ports_and_sizes_are_checked_when_running)
{
	static float buf[N];
	carsh_machine *m = machine();
	carsh_pipeline *p = NULL;
	carsh_flowmodel *other_fm;
	carsh_machine *other = machine();
	int ent, ex;

	OK(carsh_pipeline_new(m, &p));
	add(p, m, "a", "v", 0);
	other_fm = stage(other, "o", "v", 0);
	ck_assert_int_eq(carsh_pipeline_add(p, "o", other_fm), CARSH_E_ARG);
	expect_error(p, "another machine's");
	OK(carsh_pipeline_entrance(p, "a", "in", 1, &ent));
	OK(carsh_pipeline_exit(p, "a", "out", 1, &ex));
	ck_assert_int_eq(carsh_pipeline_send(p, ent, buf, sizeof(buf)), CARSH_E_STATE);
	OK(carsh_pipeline_implement(p));
	ck_assert_int_eq(carsh_pipeline_implement(p), CARSH_E_STATE);
	ck_assert_int_eq(carsh_pipeline_add(p, "late", other_fm), CARSH_E_STATE);
	ck_assert_int_eq(carsh_pipeline_send(p, ex, buf, sizeof(buf)), CARSH_E_NAME);
	expect_error(p, "port 1 is not an ENTRANCE or INITONCE port");
	ck_assert_int_eq(carsh_pipeline_send(p, 9, buf, sizeof(buf)), CARSH_E_NAME);
	ck_assert_int_eq(carsh_pipeline_send(p, ent, buf, 8), CARSH_E_SIZE);
	expect_error(p, "port 0 carries 1024 bytes, not 8");
	ck_assert_int_eq(carsh_pipeline_receive(p, ent, buf, sizeof(buf), NULL), CARSH_E_NAME);
	ck_assert_int_eq(carsh_pipeline_receive(p, ex, buf, 4, NULL), CARSH_E_SIZE);
	ck_assert_int_eq(carsh_pipeline_run(p, -1), CARSH_E_ARG);
	carsh_pipeline_free(p);
	carsh_flowmodel_free(other_fm);
	carsh_machine_free(other);
	carsh_machine_free(m);
}
END_TEST

/* A stream the caller bound is not silently taken by a connection or a port. */
START_TEST(test_a_caller_bound_stream_is_not_taken_by_a_port)
{
	static float mem[N];
	carsh_machine *m = machine();
	carsh_pipeline *p = NULL;
	carsh_flowmodel *fm = stage(m, "a", "v", 0);
	carsh_flowmodel *gm = stage(m, "b", "v", 0);
	int port = -1;

	OK(carsh_pipeline_new(m, &p));
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "out", mem, sizeof(mem)), 0);
	OK(carsh_pipeline_add(p, "a", fm));
	OK(carsh_pipeline_add(p, "b", gm));
	ck_assert_int_eq(carsh_pipeline_exit(p, "a", "out", 1, &port), CARSH_E_STATE);
	expect_error(p, "pipeline: stage 'a': stream 'out' is bound to the caller's memory "
	                "(carsh_flowmodel_bind_memory), but a connected or port stream is the "
	                "pipeline's own buffer");
	ck_assert_int_eq(port, -1);
	ck_assert_int_eq(
	        carsh_pipeline_connect(p, "a", "out", "b", "in", CARSH_PORT_INTERMEDIATE, 1, NULL),
	        CARSH_E_STATE);
	expect_error(p, "stream 'out' is bound to the caller's memory");
	carsh_pipeline_free(p);
	/* bound after it was made a port: implement says so */
	OK(carsh_pipeline_new(m, &p));
	OK(carsh_pipeline_add(p, "b", gm));
	OK(carsh_pipeline_entrance(p, "b", "in", 1, NULL));
	OK(carsh_pipeline_exit(p, "b", "out", 1, NULL));
	ck_assert_int_eq(carsh_flowmodel_bind_memory(gm, "out", mem, sizeof(mem)), 0);
	ck_assert_int_eq(carsh_pipeline_implement(p), CARSH_E_STATE);
	expect_error(p, "pipeline: stage 'b': stream 'out' was bound by the caller after it was "
	                "connected or made a port");
	carsh_pipeline_free(p);
	carsh_flowmodel_free(fm);
	carsh_flowmodel_free(gm);
	carsh_machine_free(m);
}
END_TEST

/* An InOut connected to itself is refused at connect (it once failed only at run time with
 * CL_MEM_COPY_OVERLAP); an ENTRANCE port sent once gives its first data instead. */
START_TEST(test_an_inout_connected_to_itself_is_refused)
{
	static const char *xml =
	        "<FlowModel name=\"inc\"><Param name=\"N\" value=\"256\"/><Program><Source>"
	        "__kernel void k(__global float *y) { y[get_global_id(0)] += 1.0f; }</Source>"
	        "<Kernel name=\"k\"/></Program><WorkSize global=\"N\"/><Arguments>"
	        "<InOut name=\"y\" type=\"float\" count=\"N\"/></Arguments></FlowModel>";
	static float init[N], out[N];
	carsh_machine *m = machine();
	carsh_pipeline *p = NULL;
	carsh_flowmodel *fm = NULL;
	int ent, ex, port = -1;

	ck_assert_int_eq(carsh_flowmodel_from_string(m, xml, "inc", &fm), 0);
	OK(carsh_pipeline_new(m, &p));
	OK(carsh_pipeline_add(p, "s", fm));
	ck_assert_int_eq(
	        carsh_pipeline_connect(p, "s", "y", "s", "y", CARSH_PORT_INITONCE, 1, &port),
	        CARSH_E_ARG);
	expect_error(p, "pipeline: stage 's': the InOut 'y' is connected to itself; an InOut keeps "
	                "its data from one run to the next already");
	ck_assert_int_eq(port, -1);
	OK(carsh_pipeline_entrance(p, "s", "y", 1000, &ent));
	OK(carsh_pipeline_exit(p, "s", "y", 1, &ex));
	OK(carsh_pipeline_implement(p));
	for (int i = 0; i < N; i++)
		init[i] = (float)(i * 3);
	OK(carsh_pipeline_send(p, ent, init, sizeof(init)));
	OK(carsh_pipeline_run(p, 3));
	OK(carsh_pipeline_receive(p, ex, out, sizeof(out), NULL));
	for (int i = 0; i < N; i++)
		ck_assert(out[i] == (float)(i * 3) + 3.0f);
	carsh_pipeline_free(p);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

Suite *suite_api_pipeline(void)
{
	Suite *s = suite_create("api-pipeline");
	TCase *tc = tcase_create("meta-pipeline");

	tcase_add_test(tc, test_three_stages_match_c_item_after_item);
	tcase_add_test(tc, test_initonce_feedback_sums_and_limits_count_runs);
	tcase_add_test(tc, test_building_errors_name_what_is_wrong);
	tcase_add_test(tc, test_a_cycle_without_initonce_is_refused);
	tcase_add_test(tc, test_ports_and_sizes_are_checked_when_running);
	tcase_add_test(tc, test_a_caller_bound_stream_is_not_taken_by_a_port);
	tcase_add_test(tc, test_an_inout_connected_to_itself_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

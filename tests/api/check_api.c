/* The embedding API (carsh.h's second half; docs/api.md): every call, every error path,
 * freeing in any order, two threads on two machines, and the guest rules (no output, no
 * thread left, signal dispositions and mask untouched). Results are compared with C. */
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apitest.h"

static carsh_machine *open_machine(void)
{
	carsh_machine *m = NULL;

	ck_assert_msg(carsh_machine_open(NULL, &m) == 0, "%s", carsh_machine_last_error(m));
	return m;
}

static void expect_error(const char *got, const char *want)
{
	ck_assert_msg(strstr(got, want) != NULL, "message '%s' lacks '%s'", got, want);
}

START_TEST(test_machine_lists_its_devices_one_selected)
{
	carsh_machine *m = open_machine();
	struct carsh_device_info d;
	size_t n = 0, selected = 0;

	ck_assert_int_eq(carsh_machine_device_count(m, &n), 0);
	ck_assert_uint_ge(n, 1);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(carsh_machine_device_info(m, i, &d), 0);
		ck_assert(d.name[0] && d.type && d.compute_units > 0 && d.max_alloc > 0);
		selected += d.selected;
	}
	ck_assert_uint_eq(selected, 1);
	ck_assert_int_eq(carsh_machine_device_info(m, n, &d), CARSH_E_NAME);
	expect_error(carsh_machine_last_error(m), "the machine has");
	ck_assert_int_eq(carsh_machine_device_count(m, NULL), CARSH_E_ARG);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_machine_open_on_a_missing_device_names_it)
{
	carsh_machine *m = NULL;

	carsh_flowmodel *fm = NULL;
	carsh_buffer *b = NULL;

	ck_assert_int_eq(carsh_machine_open("no-such-device-xyz", &m), CARSH_E_DEVICE);
	ck_assert_ptr_nonnull(m);
	expect_error(carsh_machine_last_error(m), "no-such-device-xyz");
	/* Nothing is made on it: it has no device to run on. */
	ck_assert_int_eq(carsh_flowmodel_from_string(m, "<FlowModel/>", NULL, &fm), CARSH_E_STATE);
	ck_assert_ptr_null(fm);
	expect_error(carsh_machine_last_error(m),
	             "carsh_flowmodel_from_string: the machine's open failed (");
	expect_error(carsh_machine_last_error(m), "no-such-device-xyz");
	ck_assert_int_eq(carsh_buffer_new(m, 16, &b), CARSH_E_STATE);
	ck_assert_ptr_null(b);
	carsh_machine_free(m);
	ck_assert_int_eq(carsh_machine_open(NULL, NULL), CARSH_E_ARG);
}
END_TEST

START_TEST(test_saxpy_on_caller_memory_matches_c)
{
	static float x[N], y[N];
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm;
	struct carsh_stats st;
	size_t bytes = 0;

	fill(x, y);
	fm = saxpy(m, "2", x, y);
	ck_assert_int_eq(carsh_flowmodel_stream_bytes(fm, "y", &bytes), 0);
	ck_assert_uint_eq(bytes, N * sizeof(float));
	for (int f = 0; f < 3; f++)
		ck_assert_msg(carsh_flowmodel_fire(fm) == 0, "%s", carsh_flowmodel_last_error(fm));
	expect_saxpy(x, y, 2.0f, 3);
	/* between fires the memory is the caller's: a change is seen by the next fire */
	for (int i = 0; i < N; i++)
		y[i] = 1.0f + 3.0f * 2.0f * x[i];
	ck_assert_int_eq(carsh_flowmodel_fire(fm), 0);
	expect_saxpy(x, y, 2.0f, 4);
	ck_assert_int_eq(carsh_flowmodel_stats(fm, &st), 0);
	ck_assert_uint_eq(st.fires, 4);
	ck_assert_uint_eq(st.launches, 4);
	ck_assert(st.fire_ms > 0 && st.last_fire_ms > 0 && st.build_ms >= 0 && st.device[0]);
	ck_assert_str_eq(carsh_flowmodel_last_error(fm), "");
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

static const char inline_fm[] =
        "<FlowModel name=\"twice\"><Param name=\"N\" value=\"1024\"/>"
        "<Program><Source>__kernel void twice(__global const int *a, __global int *b)"
        "{ size_t i = get_global_id(0); b[i] = 2 * a[i]; }</Source><Kernel name=\"twice\"/>"
        "</Program><WorkSize global=\"N\"/><Arguments>"
        "<Input name=\"a\" type=\"int\" count=\"N\"/><Output name=\"b\" type=\"int\" count=\"N\"/>"
        "</Arguments></FlowModel>";

START_TEST(test_flowmodel_from_a_string_runs)
{
	static int a[N], b[N];
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm = NULL;

	for (int i = 0; i < N; i++)
		a[i] = i - 500;
	ck_assert_int_eq(carsh_flowmodel_from_string(m, inline_fm, NULL, &fm), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "a", a, sizeof(a)), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "b", b, sizeof(b)), 0);
	ck_assert_msg(carsh_flowmodel_fire(fm) == 0, "%s", carsh_flowmodel_last_error(fm));
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(b[i], 2 * (i - 500));
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_bad_files_are_refused_on_the_machine)
{
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm = (carsh_flowmodel *)1;

	ck_assert_int_eq(carsh_flowmodel_from_file(m, "/nonexistent/f.xml", &fm), CARSH_E_FILE);
	ck_assert_ptr_null(fm);
	expect_error(carsh_machine_last_error(m), "/nonexistent/f.xml");
	ck_assert_int_eq(carsh_flowmodel_from_string(m, "<FlowModel>", "s.xml", &fm), CARSH_E_FILE);
	expect_error(carsh_machine_last_error(m), "s.xml:1: malformed XML");
	ck_assert_int_eq(carsh_flowmodel_from_string(m, "<CarshExe/>", "e.xml", &fm), CARSH_E_FILE);
	expect_error(carsh_machine_last_error(m), "expected a <FlowModel>");
	ck_assert_int_eq(carsh_flowmodel_from_string(m, NULL, NULL, &fm), CARSH_E_ARG);
	ck_assert_int_eq(carsh_flowmodel_from_file(m, NULL, &fm), CARSH_E_ARG);
	ck_assert_int_eq(carsh_flowmodel_from_file(NULL, saxpy_path, &fm), CARSH_E_ARG);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_stream_and_parameter_names_are_checked)
{
	static float x[N];
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm = saxpy(m, "2", NULL, NULL);
	size_t bytes;

	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "z", x, sizeof(x)), CARSH_E_NAME);
	expect_error(carsh_flowmodel_last_error(fm), "no stream 'z' (streams: x y)");
	ck_assert_int_eq(carsh_flowmodel_stream_bytes(fm, "a", &bytes), CARSH_E_NAME);
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "n", "8"), CARSH_E_NAME);
	expect_error(carsh_flowmodel_last_error(fm), "no parameter 'n' (parameters: N A)");
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, NULL, "8"), CARSH_E_ARG);
	/* a word for a number is said to be one, not taken for an unknown parameter */
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "N", "abc"), CARSH_E_ARG);
	expect_error(carsh_flowmodel_last_error(fm),
	             "parameter 'N' (carsh_flowmodel_set_param): 'abc' is not a number, nor the "
	             "name of a parameter");
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_sizes_must_match_the_stream)
{
	static float x[N], y[N];
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm = saxpy(m, "2", NULL, NULL);

	fill(x, y);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "x", x, sizeof(x) - 4), CARSH_E_SIZE);
	expect_error(carsh_flowmodel_last_error(fm),
	             "stream 'x' is 4096 bytes (1024 float), not 4092");
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "x", NULL, sizeof(x)), CARSH_E_ARG);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "x", x, sizeof(x)), 0);
	/* a fire with a stream unbound */
	ck_assert_int_eq(carsh_flowmodel_fire(fm), CARSH_E_STATE);
	expect_error(carsh_flowmodel_last_error(fm), "stream 'y' is not bound");
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "y", y, sizeof(y)), 0);
	/* a bad value leaves the flow-model as it was */
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "N", "-3"), CARSH_E_ARG);
	expect_error(carsh_flowmodel_last_error(fm), "is -3: it must be at least 1");
	ck_assert_int_eq(carsh_flowmodel_fire(fm), 0);
	expect_saxpy(x, y, 2.0f, 1);
	/* a new size for bound streams: the next fire says so */
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "N", "512"), 0);
	ck_assert_int_eq(carsh_flowmodel_fire(fm), CARSH_E_SIZE);
	expect_error(carsh_flowmodel_last_error(fm),
	             "stream 'x' is 2048 bytes (512 float), not 4096");
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_async_fire_then_test_and_wait)
{
	static float x[N], y[N];
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm;
	int done = 0;

	fill(x, y);
	fm = saxpy(m, "0.5", x, y);
	ck_assert_int_eq(carsh_flowmodel_test(fm, &done), 0);
	ck_assert_int_eq(done, 1); /* nothing in flight */
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0); /* queued behind the first */
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "A", "1"), CARSH_E_STATE);
	expect_error(carsh_flowmodel_last_error(fm), "a fire is in flight");
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "y", y, sizeof(y)), CARSH_E_STATE);
	do
		ck_assert_int_eq(carsh_flowmodel_test(fm, &done), 0);
	while (!done);
	expect_saxpy(x, y, 0.5f, 2);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_wait(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_wait(fm), 0); /* nothing in flight: nothing to do */
	expect_saxpy(x, y, 0.5f, 3);
	ck_assert_int_eq(carsh_flowmodel_test(fm, NULL), CARSH_E_ARG);
	/* freed with fires in flight: waits, and the memory is up to date */
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	carsh_flowmodel_free(fm);
	expect_saxpy(x, y, 0.5f, 5);
	carsh_machine_free(m);
}
END_TEST

/* Fires queue as OpenCL's commands do (issue 40): a loop that waits only at the end gives
 * what firing one at a time gives, past the queue's depth (64) too, behind a synchronous
 * fire, across a change of profiling (another command queue) and on a virtual buffer; every
 * fire is counted. */
START_TEST(test_queued_fires_give_what_one_at_a_time_gives)
{
	static float x[N], y[N], back[N];
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm;
	carsh_buffer *by = NULL;
	struct carsh_stats st;
	int done = 0;

	fill(x, y);
	fm = saxpy(m, "0.5", x, y);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_wait(fm), 0);
	expect_saxpy(x, y, 0.5f, 100);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_fire(fm), 0); /* ends the three before it */
	expect_saxpy(x, y, 0.5f, 104);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_set_profiling(fm, 1), 0);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	do
		ck_assert_int_eq(carsh_flowmodel_test(fm, &done), 0);
	while (!done);
	expect_saxpy(x, y, 0.5f, 107);
	ck_assert_int_eq(carsh_flowmodel_stats(fm, &st), 0);
	ck_assert_uint_eq(st.fires, 107);
	ck_assert_uint_eq(st.launches, 107);
	/* y on a virtual buffer: the device's copy is the one the next fire reads */
	fill(x, y);
	ck_assert_int_eq(carsh_buffer_new(m, sizeof(y), &by), 0);
	ck_assert_int_eq(carsh_buffer_write(by, 0, y, sizeof(y)), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(fm, "y", by), 0);
	for (int i = 0; i < 70; i++)
		ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_wait(fm), 0);
	ck_assert_int_eq(carsh_buffer_read(by, 0, back, sizeof(back)), 0);
	expect_saxpy(x, back, 0.5f, 70);
	carsh_buffer_free(by);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_virtual_buffers_stay_on_the_device)
{
	static float x[N], y[N], back[N];
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm = saxpy(m, "2", NULL, NULL);
	carsh_buffer *bx = NULL, *small = NULL;

	fill(x, y);
	ck_assert_int_eq(carsh_buffer_new(m, sizeof(x), &bx), 0);
	ck_assert_uint_eq(carsh_buffer_size(bx), sizeof(x));
	ck_assert_int_eq(carsh_buffer_read(bx, 0, back, sizeof(back)), 0);
	ck_assert(back[0] == 0.0f && back[N - 1] == 0.0f); /* zero-filled */
	ck_assert_int_eq(carsh_buffer_write(bx, 0, x, sizeof(x)), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(fm, "x", bx), 0);
	carsh_buffer_free(bx); /* the flow-model keeps it */
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "y", y, sizeof(y)), 0);
	ck_assert_int_eq(carsh_flowmodel_fire(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_fire(fm), 0);
	expect_saxpy(x, y, 2.0f, 2);
	ck_assert_int_eq(carsh_buffer_new(m, 16, &small), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(fm, "y", small), CARSH_E_SIZE);
	ck_assert_int_eq(carsh_buffer_read(small, 8, back, 16), CARSH_E_SIZE);
	expect_error(carsh_machine_last_error(m), "16 bytes at offset 8: the buffer holds 16");
	ck_assert_int_eq(carsh_buffer_write(small, 0, NULL, 16), CARSH_E_ARG);
	ck_assert_int_eq(carsh_buffer_new(m, 0, &bx), CARSH_E_SIZE);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(fm, "y", NULL), CARSH_E_ARG);
	carsh_buffer_free(small);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_handles_free_in_any_order_and_null_is_safe)
{
	static float x[N], y[N];
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm;

	fill(x, y);
	fm = saxpy(m, "1", x, y);
	carsh_machine_free(m); /* the flow-model keeps the machine */
	ck_assert_int_eq(carsh_flowmodel_fire(fm), 0);
	expect_saxpy(x, y, 1.0f, 1);
	carsh_flowmodel_free(fm);
	carsh_machine_free(NULL);
	carsh_flowmodel_free(NULL);
	carsh_buffer_free(NULL);
	carsh_pipeline_free(NULL);
	ck_assert_int_eq(carsh_flowmodel_fire(NULL), CARSH_E_ARG);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(NULL, "x", x, 4), CARSH_E_ARG);
	ck_assert_int_eq(carsh_pipeline_run(NULL, 1), CARSH_E_ARG);
	ck_assert_int_eq(carsh_buffer_write(NULL, 0, x, 4), CARSH_E_ARG);
	ck_assert_uint_eq(carsh_buffer_size(NULL), 0);
	ck_assert_ptr_nonnull(carsh_machine_last_error(NULL));
	ck_assert_ptr_nonnull(carsh_flowmodel_last_error(NULL));
	ck_assert_ptr_nonnull(carsh_pipeline_last_error(NULL));
}
END_TEST

START_TEST(test_a_build_error_is_returned_with_the_log)
{
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm = NULL;
	static int a[N], b[N];
	char bad[sizeof(inline_fm)];
	char *at;

	memcpy(bad, inline_fm, sizeof(bad));
	at = strstr(bad, "b[i] = 2");
	memcpy(at, "b[i] = q", 8); /* an undeclared identifier */
	ck_assert_int_eq(carsh_flowmodel_from_string(m, bad, "bad.xml", &fm), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "a", a, sizeof(a)), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "b", b, sizeof(b)), 0);
	ck_assert_int_eq(carsh_flowmodel_fire(fm), CARSH_E_DEVICE);
	expect_error(carsh_flowmodel_last_error(fm), "build failed");
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_profiling_times_the_kernel)
{
	static float x[N], y[N];
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm;
	struct carsh_stats st;

	fill(x, y);
	fm = saxpy(m, "2", x, y);
	ck_assert_int_eq(carsh_flowmodel_set_profiling(fm, 1), 0);
	ck_assert_int_eq(carsh_flowmodel_fire(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_wait(fm), 0);
	expect_saxpy(x, y, 2.0f, 2);
	ck_assert_int_eq(carsh_flowmodel_stats(fm, &st), 0);
	ck_assert(st.kernel_ms > 0);
	ck_assert_int_eq(carsh_flowmodel_stats(fm, NULL), CARSH_E_ARG);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

/* What a fire keeps from the last one (its kernel's arguments, its queue) never hides a
 * change: a parameter, a binding, profiling on or off, another flow-model of the same kernel
 * in between; and every fire is counted. y = 1 + k*x after fires adding up to k. */
static void expect_k(const float *x, const float *y, float k)
{
	for (int i = 0; i < N; i++)
		ck_assert_msg(y[i] == 1.0f + k * x[i], "y[%d] = %g, expected %g", i, (double)y[i],
		              (double)(1.0f + k * x[i]));
}

static void fire_ok(carsh_flowmodel *fm)
{
	ck_assert_msg(carsh_flowmodel_fire(fm) == 0, "%s", carsh_flowmodel_last_error(fm));
}

START_TEST(test_changes_between_fires_take_effect)
{
	static float x[N], y[N], x2[N], y2[N], y3[N], back[N];
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm, *other;
	carsh_buffer *b = NULL;
	struct carsh_stats st;

	fill(x, y);
	fill(x2, y2);
	fill(x, y3);
	fm = saxpy(m, "2", x, y);
	other = saxpy(m, "3", x2, y2); /* the same kernel on the same machine */
	fire_ok(fm);
	fire_ok(other);
	fire_ok(fm);
	expect_k(x, y, 4.0f);
	expect_k(x2, y2, 3.0f);
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "A", "1"), 0);
	fire_ok(fm);
	expect_k(x, y, 5.0f);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "y", y3, sizeof(y3)), 0);
	fire_ok(fm);
	expect_k(x, y3, 1.0f);
	expect_k(x, y, 5.0f); /* the old memory is left alone */
	ck_assert_int_eq(carsh_flowmodel_set_profiling(fm, 1), 0);
	fire_ok(fm);
	fire_ok(other);
	ck_assert_int_eq(carsh_flowmodel_set_profiling(fm, 0), 0);
	fire_ok(fm);
	expect_k(x, y3, 3.0f);
	expect_k(x2, y2, 6.0f);
	/* a profiled fire in flight, then a read on the machine: it comes after the fire */
	ck_assert_int_eq(carsh_buffer_new(m, sizeof(y), &b), 0);
	ck_assert_int_eq(carsh_buffer_write(b, 0, y, sizeof(y)), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(fm, "y", b), 0);
	ck_assert_int_eq(carsh_flowmodel_set_profiling(fm, 1), 0);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_buffer_read(b, 0, back, sizeof(back)), 0);
	expect_k(x, back, 6.0f);
	ck_assert_int_eq(carsh_flowmodel_wait(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_stats(fm, &st), 0);
	ck_assert_uint_eq(st.fires, 7);
	ck_assert_uint_eq(st.launches, 7);
	ck_assert(st.kernel_ms > 0);
	ck_assert_int_eq(carsh_flowmodel_stats(other, &st), 0);
	ck_assert_uint_eq(st.fires, 2);
	ck_assert_uint_eq(st.launches, 2);
	carsh_buffer_free(b);
	carsh_flowmodel_free(other);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

/* ---- threads ---- */

struct worker {
	float x[N], y[N];
	float a;
	int fires;
	int rc;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	carsh_machine *m = NULL;
	carsh_flowmodel *fm = NULL;
	char a[16];

	snprintf(a, sizeof(a), "%g", (double)w->a);
	w->rc = carsh_machine_open(NULL, &m);
	if (w->rc == 0)
		w->rc = carsh_flowmodel_from_file(m, saxpy_path, &fm);
	if (w->rc == 0)
		w->rc = carsh_flowmodel_set_param(fm, "N", "1024") ||
		        carsh_flowmodel_set_param(fm, "A", a) ||
		        carsh_flowmodel_bind_memory(fm, "x", w->x, sizeof(w->x)) ||
		        carsh_flowmodel_bind_memory(fm, "y", w->y, sizeof(w->y));
	for (int f = 0; f < w->fires && w->rc == 0; f++)
		w->rc = carsh_flowmodel_fire(fm);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
	return NULL;
}

START_TEST(test_two_threads_on_two_machines_at_once)
{
	static struct worker w[2];
	pthread_t t[2];

	for (int k = 0; k < 2; k++) {
		fill(w[k].x, w[k].y);
		w[k].a = k ? 0.5f : 2.0f;
		w[k].fires = 100;
		ck_assert_int_eq(pthread_create(&t[k], NULL, work, &w[k]), 0);
	}
	for (int k = 0; k < 2; k++) {
		pthread_join(t[k], NULL);
		ck_assert_int_eq(w[k].rc, 0);
		expect_saxpy(w[k].x, w[k].y, w[k].a, 100);
	}
}
END_TEST

/* ---- the guest rules ---- */

static void one_saxpy(void)
{
	static float x[N], y[N];
	carsh_machine *m = open_machine();
	carsh_flowmodel *fm;

	fill(x, y);
	fm = saxpy(m, "2", x, y);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_wait(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "q", x, 4), CARSH_E_NAME);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}

START_TEST(test_a_guest_leaves_threads_signals_and_output_alone)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD};
	struct sigaction before[6], after;
	sigset_t mask_before, mask_after;
	char path[] = "/tmp/check_api_out.XXXXXX";
	int fd = mkstemp(path), saved1 = dup(1), saved2 = dup(2), threads;

	one_saxpy(); /* the OpenCL driver's own threads start once and stay: not ours */
	threads = thread_count();
	for (size_t i = 0; i < 6; i++)
		sigaction(sigs[i], NULL, &before[i]);
	pthread_sigmask(SIG_SETMASK, NULL, &mask_before);
	fflush(stdout);
	fflush(stderr);
	dup2(fd, 1);
	dup2(fd, 2);
	one_saxpy();
	fflush(stdout);
	fflush(stderr);
	dup2(saved1, 1);
	dup2(saved2, 2);
	ck_assert_int_eq((int)lseek(fd, 0, SEEK_END), 0); /* nothing printed */
	close(fd);
	unlink(path);
	ck_assert_int_eq(thread_count(), threads);
	for (size_t i = 0; i < 6; i++) {
		sigaction(sigs[i], NULL, &after);
		ck_assert(after.sa_handler == before[i].sa_handler);
	}
	pthread_sigmask(SIG_SETMASK, NULL, &mask_after);
	for (int s = 1; s < 32; s++)
		ck_assert_int_eq(sigismember(&mask_after, s), sigismember(&mask_before, s));
}
END_TEST

Suite *suite_api_pipeline(void);
Suite *suite_api_structs(void);
Suite *suite_api_images(void);

static Suite *suite_api(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("caravela");

	tcase_add_checked_fixture(tc, apitest_setup, NULL);
	tcase_add_test(tc, test_machine_lists_its_devices_one_selected);
	tcase_add_test(tc, test_machine_open_on_a_missing_device_names_it);
	tcase_add_test(tc, test_saxpy_on_caller_memory_matches_c);
	tcase_add_test(tc, test_flowmodel_from_a_string_runs);
	tcase_add_test(tc, test_bad_files_are_refused_on_the_machine);
	tcase_add_test(tc, test_stream_and_parameter_names_are_checked);
	tcase_add_test(tc, test_sizes_must_match_the_stream);
	tcase_add_test(tc, test_async_fire_then_test_and_wait);
	tcase_add_test(tc, test_queued_fires_give_what_one_at_a_time_gives);
	tcase_add_test(tc, test_virtual_buffers_stay_on_the_device);
	tcase_add_test(tc, test_handles_free_in_any_order_and_null_is_safe);
	tcase_add_test(tc, test_a_build_error_is_returned_with_the_log);
	tcase_add_test(tc, test_profiling_times_the_kernel);
	tcase_add_test(tc, test_changes_between_fires_take_effect);
	tcase_add_test(tc, test_two_threads_on_two_machines_at_once);
	tcase_add_test(tc, test_a_guest_leaves_threads_signals_and_output_alone);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_api());
	int failed;

	srunner_add_suite(sr, suite_api_pipeline());
	srunner_add_suite(sr, suite_api_structs());
	srunner_add_suite(sr, suite_api_images());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The device feeder (runtime/feeder.c) on the first OpenCL device: launches and fills run
 * in the order they were handed over, with the argument values of the moment they were
 * handed over; a failure is reported once, by the next hand-over or finish, and what was
 * handed over after it is dropped. */
#include <stdlib.h>
#include <string.h>

#include "runtime/feeder.h"
#include "runtime/session.h"
#include "suites.h"

#define COUNT 64

static const char *source =
        "__kernel void add(__global int *a, int by) { a[get_global_id(0)] += by; }\n";

struct fixture {
	struct rt_session *s;
	struct rt_dev *dev;
	struct rt_kernel *k;
	cl_mem buf;
};

static void setup(struct fixture *f)
{
	/* The session checks a plan's arguments against the kernel's. */
	struct kernel_arg args[2] = {
	        {.kind = ARG_INOUT, .name = "a", .type = {SC_INT, 1}},
	        {.kind = ARG_CONSTANT, .name = "by", .type = {SC_INT, 1}},
	};
	struct kernel_plan kp = {.source = (char *)source,
	                         .source_name = "test_feeder",
	                         .kernel = "add",
	                         .build_options = "",
	                         .args = args,
	                         .nargs = 2};
	int zero[COUNT] = {0};
	struct run_stats st;
	struct cs_err e;
	cl_int err;

	setenv("CARSH_FEEDER", "on", 1);
	setenv("CARSH_NO_CACHE", "1", 1);
	memset(&st, 0, sizeof(st));
	f->s = rt_session_new();
	ck_assert_msg(rt_session_device(f->s, &kp, &f->dev, &st, &e) == 0, "%s", e.msg);
	ck_assert_msg(rt_session_kernel(f->s, f->dev, &kp, &f->k, &st, &e) == 0, "%s", e.msg);
	ck_assert(rt_feeder_wanted(f->dev->info));
	f->buf = clCreateBuffer(f->dev->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(zero),
	                        zero, &err);
	ck_assert_int_eq(err, CL_SUCCESS);
}

static void teardown(struct fixture *f)
{
	clReleaseMemObject(f->buf);
	rt_session_free(f->s);
}

/* A launch of add(buf, by); a bad one has work-groups of 3, which do not divide the work
 * size, so that clEnqueueNDRangeKernel fails. */
static struct feed_launch *add_launch(struct fixture *f, int by, bool bad)
{
	struct feed_launch *l = feed_launch_new(2, sizeof(int));

	l->kernel = f->k->k;
	l->name = f->k->name;
	l->dims = 1;
	l->global[0] = COUNT;
	l->local[0] = 3;
	l->has_local = bad;
	l->args[0] = (struct feed_arg){FEED_MEM, sizeof(cl_mem), f->buf, NULL};
	l->args[1] = (struct feed_arg){FEED_VALUE, sizeof(int), NULL, l->values};
	memcpy(l->values, &by, sizeof(by));
	return l;
}

static void expect_all(struct fixture *f, int want)
{
	int got[COUNT];

	ck_assert_int_eq(clEnqueueReadBuffer(rt_dev_queue(f->dev), f->buf, CL_TRUE, 0, sizeof(got),
	                                     got, 0, NULL, NULL),
	                 CL_SUCCESS);
	for (int i = 0; i < COUNT; i++)
		ck_assert_int_eq(got[i], want);
}

START_TEST(test_order_and_values)
{
	struct fixture f;
	struct cs_err e;
	int zero = 0, want = 0;

	setup(&f);
	for (int i = 1; i <= 300; i++) {
		ck_assert_msg(rt_feed_launch(f.dev, add_launch(&f, i, false), &e) == 0, "%s",
		              e.msg);
		want += i;
		if (i == 200) { /* a fill between launches resets what came before it only */
			ck_assert_msg(rt_feed_fill(f.dev, f.buf, &zero, sizeof(zero),
			                           COUNT * sizeof(int), &e) == 0,
			              "%s", e.msg);
			want = 0;
		}
	}
	ck_assert_msg(rt_dev_finish(f.dev, &e) == 0, "%s", e.msg);
	expect_all(&f, want);
	teardown(&f);
}
END_TEST

START_TEST(test_failure_reported_once)
{
	struct fixture f;
	struct cs_err e;

	int reported = 0, want = 5;

	setup(&f);
	ck_assert(rt_feed_launch(f.dev, add_launch(&f, 5, false), &e) == 0);
	ck_assert(rt_feed_launch(f.dev, add_launch(&f, 7, true), &e) == 0);
	/* Launches handed over after the failure are dropped until it is reported (here, or
	 * by the finish below, depending on when the feeder gets to it); later ones run. */
	for (int i = 0; i < 3; i++) {
		if (rt_feed_launch(f.dev, add_launch(&f, 100, false), &e) != 0) {
			ck_assert_msg(
			        strstr(e.msg,
			               "clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE"),
			        "%s", e.msg);
			reported++;
		} else if (reported) {
			want += 100;
		}
	}
	if (rt_dev_finish(f.dev, &e) != 0) {
		ck_assert_msg(
		        strstr(e.msg, "kernel 'add' on ") &&
		                strstr(e.msg,
		                       "clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE"),
		        "%s", e.msg);
		reported++;
	}
	ck_assert_int_eq(reported, 1);
	expect_all(&f, want);
	want += 1;
	/* reported once: the next launches run */
	ck_assert_msg(rt_feed_launch(f.dev, add_launch(&f, 1, false), &e) == 0, "%s", e.msg);
	ck_assert_msg(rt_dev_finish(f.dev, &e) == 0, "%s", e.msg);
	expect_all(&f, want);
	teardown(&f);
}
END_TEST

START_TEST(test_failure_reported_by_next_hand_over)
{
	struct fixture f;
	struct cs_err e;

	setup(&f);
	ck_assert(rt_feed_launch(f.dev, add_launch(&f, 7, true), &e) == 0);
	(void)rt_dev_queue(f.dev); /* the feeder has tried it */
	ck_assert_int_eq(rt_feed_launch(f.dev, add_launch(&f, 2, false), &e), -1);
	ck_assert_msg(strstr(e.msg, "clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE"),
	              "%s", e.msg);
	ck_assert_msg(rt_dev_finish(f.dev, &e) == 0, "%s", e.msg);
	expect_all(&f, 0);
	teardown(&f);
}
END_TEST

/* The first `count` ints of f's buffer. */
static void expect_prefix(struct fixture *f, const int *want, size_t count)
{
	int got[COUNT];

	ck_assert_int_eq(clEnqueueReadBuffer(rt_dev_queue(f->dev), f->buf, CL_TRUE, 0,
	                                     count * sizeof(int), got, 0, NULL, NULL),
	                 CL_SUCCESS);
	for (size_t i = 0; i < count; i++)
		ck_assert_msg(got[i] == want[i], "int %zu: %d, not %d", i, got[i], want[i]);
}

/* Small fills of 4- and 8-byte patterns, each followed by a launch: in order, each fill's
 * own contents, and over the buffer's first bytes only. */
START_TEST(test_small_fills)
{
	struct fixture f;
	struct cs_err e;
	int want[COUNT] = {0};

	setup(&f);
	for (int i = 0; i < 80; i++) {
		int pair[2] = {i, -i};
		size_t ints = 1 + (size_t)i % 16; /* 4 to 64 bytes */
		bool wide = i % 3 == 0 && ints % 2 == 0;

		ck_assert_msg(rt_feed_fill(f.dev, f.buf, pair, wide ? sizeof(pair) : sizeof(int),
		                           ints * sizeof(int), &e) == 0,
		              "%s", e.msg);
		for (size_t k = 0; k < ints; k++)
			want[k] = wide && k % 2 ? -i : i;
		ck_assert_msg(rt_feed_launch(f.dev, add_launch(&f, 1, false), &e) == 0, "%s",
		              e.msg);
		for (size_t k = 0; k < COUNT; k++)
			want[k]++;
		if (i % 20 == 19)
			expect_prefix(&f, want, COUNT);
	}
	ck_assert_msg(rt_dev_finish(f.dev, &e) == 0, "%s", e.msg);
	expect_prefix(&f, want, COUNT);
	teardown(&f);
}
END_TEST

/* Woken at any point (rt_feeder_wake: before its first launch, between launches, after a
 * finish, when it may be polling or asleep), the feeder queues every launch once, in order,
 * and a finish still waits for them all. */
START_TEST(test_woken_anywhen)
{
	struct fixture f;
	struct cs_err e;
	int want = 0;

	setup(&f);
	rt_feeder_wake(f.dev); /* no feeder yet */
	for (int i = 1; i <= 200; i++) {
		ck_assert_msg(rt_feed_launch(f.dev, add_launch(&f, i, false), &e) == 0, "%s",
		              e.msg);
		want += i;
		rt_feeder_wake(f.dev);
		if (i % 20 == 0) {
			ck_assert_msg(rt_dev_finish(f.dev, &e) == 0, "%s", e.msg);
			expect_all(&f, want);
			rt_feeder_wake(f.dev);
			rt_feeder_wake(f.dev);
		}
	}
	ck_assert_msg(rt_dev_finish(f.dev, &e) == 0, "%s", e.msg);
	expect_all(&f, want);
	teardown(&f);
}
END_TEST

Suite *suite_feeder(void)
{
	Suite *s = suite_create("feeder");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_order_and_values);
	tcase_add_test(tc, test_failure_reported_once);
	tcase_add_test(tc, test_failure_reported_by_next_hand_over);
	tcase_add_test(tc, test_small_fills);
	tcase_add_test(tc, test_woken_anywhen);
	suite_add_tcase(s, tc);
	return s;
}

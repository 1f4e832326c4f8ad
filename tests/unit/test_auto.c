/*
 * The arithmetic of the `auto` device choice (runner/devplace.h, 002 §4-5) and the profile
 * history it shares with the partition knowledge base (data/profstore.h), with values
 * computed by hand.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/profstore.h"
#include "runner/devplace.h"
#include "mpi/rankforecast.h"

static struct prof_rec rec(size_t size, double ms, double mj)
{
	struct prof_rec r = {0};

	r.size = size;
	r.v[0] = ms;
	r.v[1] = mj;
	return r;
}

/* 1000 items in 2 ms, 3000 in 6 ms: 1500 lies a quarter of the way, 3 ms. */
START_TEST(test_forecast_interpolates_between_sizes)
{
	struct prof_rec lo = rec(1000, 2, 10), hi = rec(3000, 6, 50);

	ck_assert_double_eq_tol(place_forecast(&lo, &hi, 1500, 0), 3.0, 1e-12);
	ck_assert_double_eq_tol(place_forecast(&lo, &hi, 1500, 1), 20.0, 1e-12);
	ck_assert_double_eq_tol(place_forecast(&lo, &lo, 1000, 0), 2.0, 1e-12);
}
END_TEST

/* Below the smallest size: its time (launch-bound); above the largest: scaled by size. */
START_TEST(test_forecast_outside_the_known_sizes)
{
	struct prof_rec r = rec(1000, 2, -1);

	ck_assert_double_eq_tol(place_forecast(NULL, &r, 10, 0), 2.0, 1e-12);
	ck_assert_double_eq_tol(place_forecast(&r, NULL, 4000, 0), 8.0, 1e-12);
	ck_assert_double_eq_tol(place_forecast(&r, NULL, 4000, 1), -1.0, 1e-12);
}
END_TEST

/* Jobs of 10 and 5 ms placed at t=100 and t=101; at t=104 the first has run 4 ms: 11 ms
 * left. A device whose last job ended at t=106 started the first then: at t=108, 13 left. */
START_TEST(test_busy_is_the_queue_less_what_ran)
{
	double fc[] = {10, 5}, at[] = {100, 101};

	ck_assert_double_eq_tol(place_busy_ms(fc, at, 2, 0, 104), 11.0, 1e-12);
	ck_assert_double_eq_tol(place_busy_ms(fc, at, 2, 106, 108), 13.0, 1e-12);
	ck_assert_double_eq_tol(place_busy_ms(fc, at, 2, 0, 500), 5.0, 1e-12);
	ck_assert_double_eq_tol(place_busy_ms(fc, at, 0, 0, 500), 0.0, 1e-12);
}
END_TEST

/* The GPU runs the job in 3.1 ms, the CPU in 12.4 ms: the GPU, unless 10 ms are queued on
 * it (13.1 > 12.4). */
START_TEST(test_pick_earliest_end_avoids_a_busy_device)
{
	struct place_cand c[] = {{"gpu", true, false, 3.1, -1, 0, 0, 0},
	                         {"cpu", true, false, 12.4, -1, 0, 0, 0}};
	char why[200];

	ck_assert_uint_eq(place_pick(c, 2, PLACE_TIME, why, sizeof(why)), 0);
	ck_assert_str_eq(why, "auto: gpu, forecast 3.1 ms vs cpu 12.4 ms");
	c[0].busy_ms = 10;
	c[0].queued = 1;
	ck_assert_uint_eq(place_pick(c, 2, PLACE_TIME, why, sizeof(why)), 1);
	ck_assert_str_eq(why, "auto: cpu, forecast 12.4 ms vs gpu 13.1 ms");
}
END_TEST

/* A device without a profile is tried first; while it is being tried, the fewest queued. */
START_TEST(test_pick_explores_each_device_once)
{
	struct place_cand c[] = {{"gpu", true, false, 1, -1, 0, 0, 0},
	                         {"cpu", false, false, 0, -1, 0, 0, 0}};
	char why[200];

	ck_assert_uint_eq(place_pick(c, 2, PLACE_TIME, why, sizeof(why)), 1);
	ck_assert_str_eq(why, "auto: cpu, a first run there (no profile yet)");
	c[1].exploring = true;
	c[1].queued = 1;
	ck_assert_uint_eq(place_pick(c, 2, PLACE_TIME, why, sizeof(why)), 0);
	ck_assert_str_eq(why, "auto: gpu, profiles still being measured: fewest jobs queued");
}
END_TEST

/* rank="auto" across 3 ranks, a 10 ms job at 1e6 bytes a ms. Rank 0 holds its inputs but
 * has 30 ms queued: 30 + 0 + 10 = 40. Rank 1 has 5 ms queued and lacks 8 MB: 5 + 8 + 10 =
 * 23. Rank 2 has 12 ms queued and lacks 1 MB: 12 + 1 + 10 = 23, a tie with rank 1, which
 * is lower. */
START_TEST(test_rank_pick_earliest_end_with_moves)
{
	double queued[] = {30, 5, 12};
	size_t missing[] = {0, 8000000, 1000000};
	char why[200];

	ck_assert_int_eq(rank_pick(queued, missing, 3, 10, 1e6, why, sizeof(why)), 1);
	ck_assert_str_eq(why, "auto: rank 1, forecast 23 ms vs rank 0 40 ms, rank 2 23 ms");
	/* Rank 2's queue 1 ms shorter: 22 ms, it wins. */
	queued[2] = 11;
	ck_assert_int_eq(rank_pick(queued, missing, 3, 10, 1e6, why, sizeof(why)), 2);
	ck_assert_str_eq(why, "auto: rank 2, forecast 22 ms vs rank 0 40 ms, rank 1 23 ms");
}
END_TEST

/* Nothing queued: the rank holding the inputs, 2 ms against 2 + 4000 / 1e6 = 2.004; once
 * a 2 ms job is queued there, the other rank, 2.004 against 4. */
START_TEST(test_rank_pick_spreads_equal_jobs)
{
	double queued[] = {0, 0};
	size_t missing[] = {0, 4000};
	char why[200];

	ck_assert_int_eq(rank_pick(queued, missing, 2, 2, 1e6, why, sizeof(why)), 0);
	ck_assert_str_eq(why, "auto: rank 0, forecast 2 ms vs rank 1 2.004 ms");
	queued[0] = 2;
	ck_assert_int_eq(rank_pick(queued, missing, 2, 2, 1e6, why, sizeof(why)), 1);
	ck_assert_str_eq(why, "auto: rank 1, forecast 2.004 ms vs rank 0 4 ms");
}
END_TEST

/* 002's DynEn: the GPU ends first but spends 5 J against the CPU's 2 J. */
START_TEST(test_pick_least_energy)
{
	struct place_cand c[] = {{"gpu", true, false, 1, 5000, 0, 0, 0},
	                         {"cpu", true, false, 4, 2000, 0, 0, 0}};
	char why[200];

	ck_assert_uint_eq(place_pick(c, 2, PLACE_ENERGY, why, sizeof(why)), 1);
	ck_assert_str_eq(why, "auto:energy: cpu, forecast 2 J vs gpu 5 J");
	ck_assert_uint_eq(place_pick(c, 2, PLACE_TIME, why, sizeof(why)), 0);
}
END_TEST

/* A device kept busy longer keeps the others powered: the cores spend 300 mJ in 10 ms (30 W),
 * the GPU 400 mJ in 2 ms (200 W); idle, the cores draw 10 W and the GPU 60 W. On an idle
 * machine the cores cost 300 - 10 x 10 + 70 x 10 = 900 mJ, the GPU 400 - 60 x 2 + 70 x 2 =
 * 420 mJ: the GPU, though its own energy is higher. With the GPU busy for 20 ms more, the
 * machine runs 20 ms anyway: the cores cost 300 - 100 = 200 mJ (ending at 10 ms, nothing
 * later), the GPU 280 + 70 x (22 - 20) = 420 mJ: the cores. Without idle powers: the
 * energies alone. */
START_TEST(test_pick_least_energy_counting_idle_power)
{
	struct place_cand c[] = {{"gpu", true, false, 2, 400, 0, 0, 60},
	                         {"cpu", true, false, 10, 300, 0, 0, 10}};
	char why[200];

	ck_assert_double_eq_tol(place_energy_mj(c, 2, 1), 900, 1e-9);
	ck_assert_double_eq_tol(place_energy_mj(c, 2, 0), 420, 1e-9);
	ck_assert_uint_eq(place_pick(c, 2, PLACE_ENERGY, why, sizeof(why)), 0);
	ck_assert_str_eq(why, "auto:energy: gpu, forecast 0.42 J vs cpu 0.9 J");
	c[0].busy_ms = 20;
	ck_assert_double_eq_tol(place_energy_mj(c, 2, 1), 200, 1e-9);
	ck_assert_double_eq_tol(place_energy_mj(c, 2, 0), 420, 1e-9);
	ck_assert_uint_eq(place_pick(c, 2, PLACE_ENERGY, why, sizeof(why)), 1);
	ck_assert_str_eq(why, "auto:energy: cpu, forecast 0.2 J vs gpu 0.42 J");
	c[0].idle_w = c[1].idle_w = 0;
	c[0].busy_ms = 0;
	ck_assert_double_eq_tol(place_energy_mj(c, 2, 0), 400, 1e-9);
	ck_assert_uint_eq(place_pick(c, 2, PLACE_ENERGY, why, sizeof(why)), 1);
	ck_assert_str_eq(why, "auto:energy: cpu, forecast 0.3 J vs gpu 0.4 J");
}
END_TEST

START_TEST(test_mode_parses_the_criterion)
{
	enum place_crit k;

	ck_assert_int_eq(place_mode("auto", &k), 1);
	ck_assert_int_eq(k, PLACE_TIME);
	ck_assert_int_eq(place_mode("AUTO:energy", &k), 1);
	ck_assert_int_eq(k, PLACE_ENERGY);
	ck_assert_int_eq(place_mode("auto:fast", &k), -1);
	ck_assert_int_eq(place_mode("gpu", &k), 0);
	ck_assert_int_eq(place_mode("automatic", &k), 0);
	ck_assert_int_eq(place_mode(NULL, &k), 0);
}
END_TEST

/* Two processes' saves keep each other's records: a partition record and a device record
 * of two histories opened on the same file both survive. */
START_TEST(test_store_save_merges_with_the_file)
{
	char path[] = "/tmp/check_auto_XXXXXX";
	int fd = mkstemp(path);
	struct profstore *a, *b;
	const char *pk[] = {"/m.xml", "k", "gpu + 2 x cpu"}, *dk[] = {"/m.xml", "k", "GPU"};
	const double pv[] = {0.5, 10, 1, 2}, dv[] = {3, -1, 1};
	const struct prof_rec *lo, *hi;
	struct cs_err e;

	close(fd);
	a = profstore_open(path);
	b = profstore_open(path);
	profstore_put(a, "partition", pk, 100, pv);
	profstore_put(b, "device", dk, 100, dv);
	ck_assert_int_eq(profstore_save(a, &e), 0);
	ck_assert_int_eq(profstore_save(b, &e), 0);
	profstore_free(a);
	profstore_free(b);
	a = profstore_open(path);
	ck_assert_str_eq(a->warning, "");
	ck_assert_uint_eq(a->n, 2);
	ck_assert(profstore_near(a, "device", dk, 100, &lo, &hi));
	ck_assert_double_eq_tol(lo->v[0], 3, 1e-12);
	ck_assert(profstore_near(a, "partition", pk, 100, &lo, &hi));
	profstore_free(a);
	unlink(path);
}
END_TEST

static Suite *suite_auto(void)
{
	Suite *s = suite_create("auto");
	TCase *t = tcase_create("forecast");

	tcase_add_test(t, test_forecast_interpolates_between_sizes);
	tcase_add_test(t, test_forecast_outside_the_known_sizes);
	tcase_add_test(t, test_busy_is_the_queue_less_what_ran);
	tcase_add_test(t, test_pick_earliest_end_avoids_a_busy_device);
	tcase_add_test(t, test_pick_explores_each_device_once);
	tcase_add_test(t, test_pick_least_energy);
	tcase_add_test(t, test_pick_least_energy_counting_idle_power);
	tcase_add_test(t, test_rank_pick_earliest_end_with_moves);
	tcase_add_test(t, test_rank_pick_spreads_equal_jobs);
	tcase_add_test(t, test_mode_parses_the_criterion);
	tcase_add_test(t, test_store_save_merges_with_the_file);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_auto());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

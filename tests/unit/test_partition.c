/*
 * Unit tests of the partition engine's schedulers (003 §4-5.1): LogFit's arithmetic against
 * values computed by hand, its sampling, refitting and CPU chunk rule, the baselines' phases,
 * and a discrete-event simulation of devices with known throughputs that checks every
 * scheduler hands out each step's space exactly once. Simulated time is deterministic: the
 * balance checks here assert nothing about real clocks. A program of its own (check_partition).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engines/partition/kb.h"
#include "engines/partition/logfit.h"
#include "engines/partition/sched.h"
#include "engines/partition/space.h"
#include "runtime/launchguard.h"

#define LN2          0.69314718055994530942
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- LogFit's arithmetic, by hand ---- */

START_TEST(test_fit_recovers_an_exact_log_curve)
{
	double x[4] = {8, 16, 32, 64}, y[4], a = 0, b = 0;

	for (int i = 0; i < 4; i++)
		y[i] = 10.0 * log(x[i]) + 5.0;
	ck_assert_int_eq(logfit_fit(x, y, 4, &a, &b), 0);
	ck_assert_double_eq_tol(a, 10.0, 1e-9);
	ck_assert_double_eq_tol(b, 5.0, 1e-9);
	/* 003 §4: the recommended chunk is a/thld with thld = 0.01. */
	ck_assert_double_eq_tol(logfit_gpu_chunk(a, LOGFIT_THLD), 1000.0, 1e-6);
}
END_TEST

/* x = 1, 2, 4, 8 gives u = ln x = (0, 1, 2, 3)·ln 2; with y = 1, 2, 2, 3:
 * Σu = 6 ln2, Σu² = 14 ln²2, Σy = 8, Σuy = 15 ln2, n = 4, so
 * a = (4·15 − 6·8) ln2 / ((4·14 − 36) ln²2) = 12 / (20 ln 2) = 0.6 / ln 2 = 0.865617...,
 * b = (8 − a·6 ln2) / 4 = (8 − 3.6) / 4 = 1.1, and a/thld = 86.5617... */
START_TEST(test_fit_matches_the_normal_equations_by_hand)
{
	double x[4] = {1, 2, 4, 8}, y[4] = {1, 2, 2, 3}, a, b;

	ck_assert_int_eq(logfit_fit(x, y, 4, &a, &b), 0);
	ck_assert_double_eq_tol(a, 0.6 / LN2, 1e-12);
	ck_assert_double_eq_tol(b, 1.1, 1e-12);
	ck_assert_double_eq_tol(logfit_gpu_chunk(a, 0.01), 60.0 / LN2, 1e-9);
	ck_assert_double_eq_tol(logfit_eval(a, b, 16), 0.6 / LN2 * 4 * LN2 + 1.1, 1e-12);
}
END_TEST

START_TEST(test_fit_needs_two_distinct_sizes)
{
	double x[4] = {5, 5, 5, 5}, y[4] = {1, 2, 3, 4}, a = 7, b = 7;

	ck_assert_int_eq(logfit_fit(x, y, 4, &a, &b), -1);
	ck_assert_int_eq(logfit_fit(x, y, 1, &a, &b), -1);
	ck_assert_double_eq(a, 7);
	ck_assert_double_eq(b, 7);
}
END_TEST

START_TEST(test_no_gpu_chunk_from_a_falling_curve)
{
	ck_assert_double_eq(logfit_gpu_chunk(-3.0, LOGFIT_THLD), 0);
	ck_assert_double_eq(logfit_gpu_chunk(0.0, LOGFIT_THLD), 0);
}
END_TEST

/* 003 §4: C = G · λC / λG. */
START_TEST(test_cpu_chunk_is_gpu_chunk_times_throughput_ratio)
{
	ck_assert_double_eq_tol(logfit_cpu_chunk(1000, 2, 50), 40, 1e-12);
	ck_assert_double_eq_tol(logfit_cpu_chunk(700, 3.5, 7), 350, 1e-12);
	ck_assert_double_eq(logfit_cpu_chunk(1000, 0, 50), 0);
}
END_TEST

/* 003 §2 and §4: x_k = nEU · 2^(k-1); 20 EUs on Haswell give 20, 40, 80, 160. */
START_TEST(test_samples_double_from_the_compute_units)
{
	ck_assert_double_eq(logfit_sample_size(20, 1), 20);
	ck_assert_double_eq(logfit_sample_size(20, 2), 40);
	ck_assert_double_eq(logfit_sample_size(20, 3), 80);
	ck_assert_double_eq(logfit_sample_size(20, 4), 160);
}
END_TEST

/* ---- the LogFit scheduler, driven by hand ---- */

static struct sched *new_sched(enum sched_kind k, size_t items, size_t granule, unsigned ncpu,
                               bool gpu, unsigned neu, double share)
{
	struct sched_cfg cfg = {k, items, granule, ncpu, gpu, neu, share, LOGFIT_THLD, false};
	const char *why = NULL;
	struct sched *s = sched_new(&cfg, &why);

	ck_assert_msg(s != NULL, "sched_new: %s", why ? why : "?");
	return s;
}

/* The GPU runs chunk c at throughput y (items per ms). */
static void gpu_runs(struct sched *s, unsigned gpu, struct sched_chunk *c, double y)
{
	ck_assert_int_eq(sched_next(s, gpu, c), SCHED_CHUNK);
	sched_done(s, gpu, c, (double)c->size / y);
}

START_TEST(test_logfit_samples_then_chunk_a_over_thld)
{
	struct sched *s = new_sched(SCHED_LOGFIT, 1000000, 1, 0, true, 20, 0);
	struct sched_chunk c;
	double a, b, g;

	sched_step_begin(s);
	for (unsigned k = 1; k <= 4; k++) {
		ck_assert_int_eq(sched_next(s, 0, &c), SCHED_CHUNK);
		ck_assert_uint_eq(c.size, 20u << (k - 1));
		ck_assert_int_eq(c.phase, PHASE_SAMPLE);
		/* A GPU whose throughput is exactly 10 ln x + 5. */
		sched_done(s, 0, &c, (double)c.size / (10.0 * log((double)c.size) + 5.0));
	}
	ck_assert(sched_logfit_state(s, &a, &b, &g));
	ck_assert_double_eq_tol(a, 10, 1e-9);
	ck_assert_double_eq_tol(b, 5, 1e-9);
	ck_assert_int_eq(sched_next(s, 0, &c), SCHED_CHUNK);
	ck_assert_uint_eq(c.size, 1000);
	ck_assert_int_eq(c.phase, PHASE_FIT);
	sched_free(s);
}
END_TEST

/* 003 §4: the set for G(t_Gi) is {(x1,y1), (x2,y2), (x3,y3), (G(t_Gi-1), λG(t_Gi-1))}. */
START_TEST(test_logfit_replaces_the_fourth_sample_with_the_last_chunk)
{
	struct sched *s = new_sched(SCHED_LOGFIT, 1000000, 1, 0, true, 20, 0);
	double y[4] = {400, 600, 700, 750}, x[4] = {20, 40, 80, 160}, a, b, g, ea, eb;
	struct sched_chunk c;

	sched_step_begin(s);
	for (int k = 0; k < 4; k++)
		gpu_runs(s, 0, &c, y[k]);
	ck_assert(sched_logfit_state(s, &a, &b, &g));
	ck_assert_int_eq(logfit_fit(x, y, 4, &ea, &eb), 0);
	ck_assert_double_eq_tol(g, ea / 0.01, 1e-6);
	/* The chunk of size g ran at 900 items/ms (the regime changed): it replaces (160, 750). */
	gpu_runs(s, 0, &c, 900);
	ck_assert_uint_eq(c.size, (size_t)(g + 0.5));
	x[3] = (double)c.size;
	y[3] = 900;
	ck_assert_int_eq(logfit_fit(x, y, 4, &ea, &eb), 0);
	ck_assert(sched_logfit_state(s, &a, &b, &g));
	ck_assert_double_eq_tol(a, ea, 1e-9);
	ck_assert_double_eq_tol(g, ea / 0.01, 1e-6);
	ck_assert_int_eq(sched_next(s, 0, &c), SCHED_CHUNK);
	ck_assert_uint_eq(c.size, (size_t)(ea / 0.01 + 0.5));
	sched_free(s);
}
END_TEST

START_TEST(test_logfit_cpu_chunk_follows_the_gpu_chunk)
{
	/* One core (device 0) and the GPU (device 1). */
	struct sched *s = new_sched(SCHED_LOGFIT, 100000000, 1, 1, true, 20, 0);
	struct sched_chunk c;
	double a, b, g;

	sched_step_begin(s);
	/* A core's first chunk is a probe of one granule (it was the first sample's size, nEU,
	 * before the sit-out rule: beside an H100 that took longer than the whole step). */
	ck_assert_int_eq(sched_next(s, 0, &c), SCHED_CHUNK);
	ck_assert_uint_eq(c.size, 1);
	ck_assert_int_eq(c.phase, PHASE_PROBE);
	sched_done(s, 0, &c, 1.0 / 2.0); /* 2 items/ms */
	for (unsigned k = 1; k <= 4; k++) {
		ck_assert_int_eq(sched_next(s, 1, &c), SCHED_CHUNK);
		sched_done(s, 1, &c, (double)c.size / (10.0 * log((double)c.size) + 5.0));
	}
	ck_assert(sched_logfit_state(s, &a, &b, &g));
	/* G = 1000, λC = 2, λG = the fit's throughput at G, 10 ln 1000 + 5 (not the last
	 * sample's 10 ln 160 + 5, which the GPU's chunk of 1000 outruns): C = G·λC/λG, rounded
	 * down to the granule (a core that ends late holds up the step). */
	ck_assert_int_eq(sched_next(s, 0, &c), SCHED_CHUNK);
	ck_assert_uint_eq(c.size, (size_t)(1000.0 * 2.0 / (10.0 * log(1000.0) + 5.0)));
	sched_free(s);
}
END_TEST

/* A core whose smallest chunk would take longer than the GPU alone needs for the rest sits
 * out the step; a core fast enough takes its chunk. */
static enum sched_answer core_after_samples(double core_items_per_ms)
{
	struct sched *s = new_sched(SCHED_LOGFIT, 10000, 10, 1, true, 20, 0);
	struct sched_chunk c;
	enum sched_answer ans;

	sched_step_begin(s);
	ck_assert_int_eq(sched_next(s, 0, &c), SCHED_CHUNK);
	sched_done(s, 0, &c, (double)c.size / core_items_per_ms);
	for (unsigned k = 1; k <= 4; k++) {
		ck_assert_int_eq(sched_next(s, 1, &c), SCHED_CHUNK);
		sched_done(s, 1, &c, (double)c.size / 1000.0); /* 1000 items/ms */
	}
	/* 9680 items left: the GPU alone needs 9.68 ms. */
	ans = sched_next(s, 0, &c);
	sched_free(s);
	return ans;
}

START_TEST(test_logfit_core_sits_out_beside_a_much_faster_gpu)
{
	ck_assert_int_eq(core_after_samples(1.0), SCHED_DONE);  /* 10 items: 10 ms */
	ck_assert_int_eq(core_after_samples(2.0), SCHED_CHUNK); /* 10 items: 5 ms */
}
END_TEST

START_TEST(test_logfit_remembers_its_samples_across_steps)
{
	struct sched *s = new_sched(SCHED_LOGFIT, 4000, 1, 0, true, 20, 0);
	struct sched_chunk c;
	size_t done = 0;

	sched_step_begin(s);
	while (sched_next(s, 0, &c) == SCHED_CHUNK) {
		sched_done(s, 0, &c, (double)c.size / (10.0 * log((double)c.size) + 5.0));
		done += c.size;
	}
	ck_assert_uint_eq(done, 4000);
	sched_step_begin(s);
	ck_assert_int_eq(sched_next(s, 0, &c), SCHED_CHUNK);
	ck_assert_int_eq(c.phase, PHASE_FIT);
	ck_assert_uint_eq(c.size, 1000);
	sched_free(s);
}
END_TEST

START_TEST(test_chunks_are_multiples_of_the_granule)
{
	struct sched *s = new_sched(SCHED_LOGFIT, 64 * 1000, 64, 0, true, 20, 0);
	struct sched_chunk c;

	sched_step_begin(s);
	while (sched_next(s, 0, &c) == SCHED_CHUNK) {
		ck_assert_uint_eq(c.size % 64, 0);
		ck_assert_uint_eq(c.offset % 64, 0);
		sched_done(s, 0, &c, (double)c.size / (10.0 * log((double)c.size) + 5.0));
	}
	sched_free(s);
}
END_TEST

/* ---- the baselines ---- */

START_TEST(test_static_gives_the_gpu_one_chunk_of_its_share)
{
	struct sched *s = new_sched(SCHED_STATIC, 1000, 10, 2, true, 4, 0.7);
	struct sched_chunk c;
	size_t cpu = 0;

	sched_step_begin(s);
	ck_assert_int_eq(sched_next(s, 2, &c), SCHED_CHUNK);
	ck_assert_uint_eq(c.offset, 0);
	ck_assert_uint_eq(c.size, 700);
	ck_assert_int_eq(sched_next(s, 2, &c), SCHED_DONE);
	while (sched_next(s, cpu % 2, &c) == SCHED_CHUNK) {
		ck_assert_uint_ge(c.offset, 700);
		cpu += c.size;
	}
	ck_assert_uint_eq(cpu, 300);
	ck_assert_uint_eq(sched_assigned(s), 1000);
	sched_free(s);
	/* 0 % leaves the GPU without work, 100 % the cores. */
	s = new_sched(SCHED_STATIC, 1000, 10, 2, true, 4, 0.0);
	sched_step_begin(s);
	ck_assert(!sched_uses(s, 2));
	ck_assert(sched_uses(s, 0));
	sched_free(s);
	s = new_sched(SCHED_STATIC, 1000, 10, 2, true, 4, 1.0);
	sched_step_begin(s);
	ck_assert(sched_uses(s, 2));
	ck_assert(!sched_uses(s, 0));
	sched_free(s);
}
END_TEST

START_TEST(test_without_a_gpu_every_scheduler_is_the_cores)
{
	enum sched_kind k[] = {SCHED_LOGFIT, SCHED_STATIC, SCHED_CONCORD, SCHED_HDSS};
	struct sched_cfg cfg = {SCHED_GPU, 100, 1, 2, false, 1, 0.5, LOGFIT_THLD, false};
	const char *why = NULL;

	for (size_t i = 0; i < 4; i++) {
		struct sched *s = new_sched(k[i], 100, 1, 2, false, 1, 0.5);

		ck_assert_int_eq(sched_running(s), SCHED_CPU);
		sched_free(s);
	}
	ck_assert_ptr_null(sched_new(&cfg, &why));
	ck_assert_str_eq(why, "the gpu scheduler needs a GPU");
}
END_TEST

/* ---- a discrete-event simulation of the devices ---- */

/* The time one device needs for a chunk: cost per item by position (an irregular load), a
 * per-chunk overhead, and for the GPU a throughput that grows with the chunk as a·ln x + b
 * until it is busy (003 Figure 1). */
struct simdev {
	bool gpu;
	double per_item; /* ms per unit of work */
	double overhead; /* ms per chunk */
	double busy_until;
	bool done;
	struct sched_chunk c;
	bool running;
	bool copying; /* writing its copy streams before its first ask of the step */
};

/* The machine simulated. */
struct simopts {
	double gpu_speed;                  /* the GPU's throughput once busy, in cores */
	double cpu_per_item;               /* ms a core takes for an item of unit work */
	double cpu_overhead, gpu_overhead; /* ms per chunk */
	double gpu_copy;                   /* ms of copies before the GPU's first ask of a step */
	bool flat;                         /* no occupancy curve: the GPU at its peak at any size */
	bool gpu_first;                    /* the GPU asks before the cores (else after them) */
};

static double work_of(size_t i, size_t items, int shape)
{
	double t = (double)i / (double)items;

	switch (shape) {
	case 1: /* coarse, irregular: a hot region in the middle */
		return (t > 0.4 && t < 0.6) ? 20.0 : 1.0;
	case 2: /* a ramp, as a triangular matrix profile */
		return 0.1 + 2.0 * t;
	case 3: /* dense cells late in the space, as the neighbour benchmark's */
		return (t >= 0.72 && t < 0.86) ? 80.0 : 1.0;
	case 4: /* light first items, as Mandelbrot's first rows outside the set */
		return t < 0.02 ? 0.02 : 1.0;
	default:
		return 1.0;
	}
}

/* prefix[i]: the work of items 0 .. i-1. */
static double chunk_ms(const struct simdev *d, const struct sched_chunk *c, const double *prefix,
                       bool flat)
{
	double w = prefix[c->offset + c->size] - prefix[c->offset];

	if (d->gpu && !flat) {
		/* Occupancy: small chunks run below the GPU's peak. */
		double occ = fmin(1.0, (double)c->size / 4096.0);

		return d->overhead + w * d->per_item / fmax(occ, 0.02);
	}
	return d->overhead + w * d->per_item;
}

struct simresult {
	double makespan; /* over all steps */
	size_t chunks;
	double gpu_share;
};

/* Runs `steps` steps; checks that each step's chunks cover [0, items) once. */
static struct simresult simulate_on(struct sched *s, unsigned ncpu, bool gpu, size_t items,
                                    unsigned steps, int shape, const struct simopts *o)
{
	unsigned ndev = ncpu + (gpu ? 1 : 0);
	struct simdev *d = calloc(ndev, sizeof(*d));
	unsigned char *seen = calloc(items, 1);
	struct simresult res = {0, 0, 0};
	double now = 0, *prefix = malloc((items + 1) * sizeof(double));
	size_t gpu_items = 0, twice = 0, never = 0;

	prefix[0] = 0;
	for (size_t i = 0; i < items; i++)
		prefix[i + 1] = prefix[i] + work_of(i, items, shape);
	for (unsigned i = 0; i < ndev; i++) {
		d[i].gpu = gpu && i == ncpu;
		d[i].per_item = d[i].gpu ? o->cpu_per_item / o->gpu_speed : o->cpu_per_item;
		d[i].overhead = d[i].gpu ? o->gpu_overhead : o->cpu_overhead;
	}
	for (unsigned st = 0; st < steps; st++) {
		memset(seen, 0, items);
		sched_step_begin(s);
		for (unsigned i = 0; i < ndev; i++) {
			d[i].done = !sched_uses(s, i);
			d[i].copying = d[i].running = d[i].gpu && !d[i].done && o->gpu_copy > 0;
			d[i].busy_until = now + (d[i].copying ? o->gpu_copy : 0);
		}
		for (;;) {
			unsigned next = ndev;

			/* Idle devices ask in index order (from the GPU's with gpu_first); then
			 * the earliest chunk finishes. */
			for (unsigned j = 0; j < ndev; j++) {
				unsigned i = o->gpu_first ? (j + ncpu) % ndev : j;
				enum sched_answer a;

				if (d[i].done || d[i].running)
					continue;
				a = sched_next(s, i, &d[i].c);
				ck_assert_int_ne(a, SCHED_WAIT);
				if (a == SCHED_DONE) {
					d[i].done = true;
					continue;
				}
				ck_assert_uint_gt(d[i].c.size, 0);
				ck_assert_uint_le(d[i].c.offset + d[i].c.size, items);
				/* Plain counting: a ck_assert per item would make a syscall each.
				 */
				for (size_t k = d[i].c.offset; k < d[i].c.offset + d[i].c.size; k++)
					twice += seen[k]++ != 0;
				d[i].running = true;
				d[i].busy_until = now + chunk_ms(&d[i], &d[i].c, prefix, o->flat);
				res.chunks++;
				if (d[i].gpu)
					gpu_items += d[i].c.size;
			}
			for (unsigned i = 0; i < ndev; i++)
				if (d[i].running &&
				    (next == ndev || d[i].busy_until < d[next].busy_until))
					next = i;
			if (next == ndev)
				break;
			if (d[next].copying) {
				sched_copied(s, next, o->gpu_copy);
			} else {
				sched_fixed(s, next, d[next].overhead);
				sched_done(s, next, &d[next].c,
				           chunk_ms(&d[next], &d[next].c, prefix, o->flat));
			}
			now = d[next].busy_until;
			d[next].running = d[next].copying = false;
		}
		for (size_t k = 0; k < items; k++)
			never += seen[k] == 0;
		ck_assert_msg(twice == 0 && never == 0,
		              "step %u of %zu items: %zu handed out twice, %zu never", st, items,
		              twice, never);
		ck_assert_uint_eq(sched_assigned(s), items);
		sched_step_end(s);
	}
	res.makespan = now;
	res.gpu_share = (double)gpu_items / ((double)items * steps);
	free(d);
	free(seen);
	free(prefix);
	return res;
}

/* The machine of most tests: a core does 100 items/ms, the GPU gpu_speed times that once a
 * chunk fills it. */
static struct simopts plain_machine(double gpu_speed)
{
	return (struct simopts){gpu_speed, 0.01, 0.005, 0.05, 0, false, false};
}

static struct simresult simulate(struct sched *s, unsigned ncpu, bool gpu, size_t items,
                                 unsigned steps, int shape, double gpu_speed)
{
	struct simopts o = plain_machine(gpu_speed);

	return simulate_on(s, ncpu, gpu, items, steps, shape, &o);
}

START_TEST(test_every_scheduler_hands_out_each_item_once)
{
	enum sched_kind kinds[] = {SCHED_LOGFIT, SCHED_STATIC, SCHED_CONCORD, SCHED_HDSS,
	                           SCHED_CPU,    SCHED_GPU,    SCHED_MARROW};
	size_t items[] = {1, 7, 64, 1000, 4096 * 3, 30011};
	size_t granules[] = {1, 8, 64};

	for (size_t k = 0; k < ARRAY_LEN(kinds); k++)
		for (unsigned ncpu = 0; ncpu <= 3; ncpu++)
			for (int gpu = 0; gpu <= 1; gpu++)
				for (size_t n = 0; n < 6; n++)
					for (size_t g = 0; g < 3; g++) {
						struct sched_cfg cfg = {
						        kinds[k],    items[n] * granules[g],
						        granules[g], ncpu,
						        gpu,         16,
						        0.3,         LOGFIT_THLD,
						        false};
						const char *why;
						struct sched *s = sched_new(&cfg, &why);

						if (!s)
							continue;
						simulate(s, ncpu, gpu, cfg.items, 3, (int)(n % 3),
						         8.0);
						sched_free(s);
					}
}
END_TEST

START_TEST(test_concord_profiles_once_then_splits)
{
	struct sched *s = new_sched(SCHED_CONCORD, 200000, 1, 4, true, 16, 0);
	struct sched_chunk c;
	size_t split_chunks = 0;

	simulate(s, 4, true, 200000, 1, 0, 8.0);
	ck_assert(sched_gpu_fraction(s) > 0);
	/* The relative speed is remembered: the next step splits at once. */
	sched_step_begin(s);
	ck_assert_int_eq(sched_next(s, 4, &c), SCHED_CHUNK);
	ck_assert_int_eq(c.phase, PHASE_SPLIT);
	ck_assert_uint_eq(c.offset, 0);
	split_chunks++;
	ck_assert_int_eq(sched_next(s, 4, &c), SCHED_DONE);
	ck_assert_int_eq(sched_next(s, 0, &c), SCHED_CHUNK);
	ck_assert_int_eq(c.phase, PHASE_SPLIT);
	ck_assert_uint_eq(split_chunks, 1);
	sched_free(s);
}
END_TEST

START_TEST(test_hdss_trains_again_in_every_step)
{
	struct sched *s = new_sched(SCHED_HDSS, 200000, 1, 4, true, 16, 0);
	struct sched_chunk c;

	simulate(s, 4, true, 200000, 1, 0, 8.0);
	ck_assert(sched_relative_speed(s) > 0);
	sched_step_begin(s);
	ck_assert_int_eq(sched_next(s, 4, &c), SCHED_CHUNK);
	ck_assert_int_eq(c.phase, PHASE_TRAIN);
	ck_assert_uint_eq(c.size, 16);
	sched_free(s);
}
END_TEST

/* On a regular load the cores and a GPU eight times as fast as one core end together:
 * LogFit's makespan is within 10 % of the ideal (all the work spread by speed). */
START_TEST(test_logfit_balances_a_regular_load)
{
	size_t items = 400000;
	struct sched *s = new_sched(SCHED_LOGFIT, items, 1, 4, true, 16, 0);
	struct simresult r = simulate(s, 4, true, items, 4, 0, 8.0);
	double ideal = 4.0 * (double)items / (100.0 * (4.0 + 8.0));

	ck_assert_msg(r.makespan < 1.10 * ideal, "makespan %.1f, ideal %.1f", r.makespan, ideal);
	ck_assert_msg(r.gpu_share > 0.55 && r.gpu_share < 0.75, "GPU share %.3f", r.gpu_share);
	sched_free(s);
}
END_TEST

/* ---- one device 300 times the others: the sit-out rule against the oracle ---- */

/* 003 §5.1's oracle: the best static split, here in steps of 1 % (003: 10 %). */
static double oracle_on(size_t items, size_t granule, unsigned ncpu, unsigned steps, int shape,
                        const struct simopts *o, double *best_share)
{
	double best = 0;

	for (int p = 0; p <= 100; p++) {
		struct sched *s =
		        new_sched(SCHED_STATIC, items, granule, ncpu, true, 132, p / 100.0);
		double ms = simulate_on(s, ncpu, true, items, steps, shape, o).makespan;

		if (p == 0 || ms < best) {
			best = ms;
			*best_share = p / 100.0;
		}
		sched_free(s);
	}
	return best;
}

static double oracle_ms(size_t items, size_t granule, unsigned ncpu, unsigned steps, int shape,
                        double speed, double *best_share)
{
	struct simopts o = plain_machine(speed);

	return oracle_on(items, granule, ncpu, steps, shape, &o, best_share);
}

/* LogFit's time over the oracle's for a first run, and for a second one primed with what
 * the first learnt (the knowledge base's profile). */
static void logfit_vs_oracle(size_t items, unsigned steps, int shape, double *first, double *second)
{
	double share, best = oracle_ms(items, 64, 4, steps, shape, 300.0, &share);
	struct sched *s = new_sched(SCHED_LOGFIT, items, 64, 4, true, 132, 0);
	struct sched_prior p;

	*first = best / simulate(s, 4, true, items, steps, shape, 300.0).makespan;
	ck_assert(sched_profile(s, &p));
	sched_free(s);
	s = new_sched(SCHED_LOGFIT, items, 64, 4, true, 132, 0);
	sched_prime(s, &p);
	*second = best / simulate(s, 4, true, items, steps, shape, 300.0).makespan;
	sched_free(s);
	fprintf(stderr,
	        "300x GPU, %zu items, %u steps, shape %d: oracle %.0f %% to the GPU; "
	        "LogFit reaches %.3f of its throughput, %.3f primed\n",
	        items, steps, shape, share * 100, *first, *second);
}

/* A regular load and a hot region. On a ramp (shape 2) the cores measure light items at the
 * front and then meet heavy ones: LogFit reached 0.93 of the oracle there, 0.74 primed
 * (docs/partition.md); it is not asserted. */
START_TEST(test_logfit_sits_cores_out_beside_a_300x_gpu)
{
	int shapes[] = {0, 1};

	for (size_t i = 0; i < ARRAY_LEN(shapes); i++) {
		double first, second;

		logfit_vs_oracle(1 << 18, 8, shapes[i], &first, &second);
		ck_assert_msg(first >= 0.97, "shape %d: %.3f of the oracle", shapes[i], first);
		ck_assert_msg(second >= 0.97, "shape %d primed: %.3f", shapes[i], second);
	}
}
END_TEST

/* The GPU's chunk time in the tests below: its throughput grows as 10⁴·ln(size) items/ms. */
static void gpu_ran(struct sched *s, unsigned dev, const struct sched_chunk *c)
{
	sched_done(s, dev, c, (double)c->size / (1e4 * log((double)c->size)));
}

/* A core that finds the step handed out already (the GPU's fitted chunk took it whole) is
 * asked again every fourth step only, as one that sat out by rule: on the H100's SpMV 16
 * cores were woken at every step for nothing. */
START_TEST(test_logfit_core_left_nothing_is_asked_every_fourth_step)
{
	struct sched *s = new_sched(SCHED_LOGFIT, 131072, 64, 2, true, 132, 0);
	struct sched_chunk c;
	bool asked[9];

	for (unsigned step = 1; step <= 8; step++) {
		size_t gpu = 0;

		sched_step_begin(s);
		asked[step] = sched_uses(s, 0);
		/* The GPU asks first: its samples, then a chunk of a/thld, more than is left. */
		while (gpu < 131072) {
			ck_assert_int_eq(sched_next(s, 2, &c), SCHED_CHUNK);
			gpu += c.size;
			gpu_ran(s, 2, &c);
		}
		if (asked[step])
			ck_assert_int_eq(sched_next(s, 0, &c), SCHED_DONE);
		sched_step_end(s);
	}
	ck_assert(asked[1] && !asked[2] && !asked[3] && !asked[4] && asked[5] && !asked[6] &&
	          !asked[7] && !asked[8]);
	sched_free(s);
}
END_TEST

/* Primed with cores too slow to shorten a step, the GPU's share set aside is the whole of
 * every step, and no core is woken in any: there is nothing it could take. */
START_TEST(test_logfit_primed_whole_gpu_step_wakes_no_core)
{
	struct sched *s = new_sched(SCHED_LOGFIT, 131072, 64, 2, true, 132, 0);
	struct sched_prior p = {1.0, 100000.0, 10.0};
	struct sched_chunk c;

	sched_prime(s, &p);
	for (unsigned step = 1; step <= 8; step++) {
		sched_step_begin(s);
		ck_assert(sched_uses(s, 2));
		ck_assert_msg(!sched_uses(s, 0) && !sched_uses(s, 1), "step %u", step);
		ck_assert_int_eq(sched_next(s, 2, &c), SCHED_CHUNK);
		ck_assert_uint_eq(c.size, 131072);
		gpu_ran(s, 2, &c);
		ck_assert_int_eq(sched_next(s, 2, &c), SCHED_DONE);
		sched_step_end(s);
	}
	sched_free(s);
}
END_TEST

/* A step shorter than a core's one-granule probe (the H100's N-body): the first run pays
 * for its exploration, a primed one does not. */
START_TEST(test_logfit_primed_skips_the_exploration_of_a_short_step)
{
	double first, second;

	logfit_vs_oracle(8192, 8, 0, &first, &second);
	ck_assert_msg(second >= 0.97, "primed: %.3f of the oracle", second);
}
END_TEST

/* A Jacobi grid of 2048 rows on the H100 and its 16 cores (docs/partition.md): a core does
 * 57 rows/ms after 0.34 ms a chunk, the GPU 570 rows/ms after 0.22 ms, and writes its 16
 * MiB copy stream for 2.1 ms before its first chunk of every step. The oracle gives the GPU
 * about 40 %. Primed, LogFit sets the GPU's share aside at the step's start and counts the
 * copy in its throughput; before, the cores took the GPU's share while it copied, the GPU
 * got 10-29 % and LogFit took 1.07-1.21 times Static's time on the H100. The oracle's cores
 * take guided chunks, down to a row, and pay 0.34 ms for each; LogFit's keep to chunks that
 * amortise it (sched-cost.c) from the second step on, and beat the oracle: 1.11 of its
 * throughput, 1.08 primed (before: 0.79 and 1.03). */
START_TEST(test_logfit_primed_keeps_a_late_gpu_share)
{
	struct simopts o = {10.0, 1.0 / 57.0, 0.34, 0.22, 2.1, true, false};
	size_t items = 2048;
	double share, best = oracle_on(items, 1, 16, 10, 0, &o, &share), first, second;
	struct sched *s;
	struct sched_prior p;

	s = new_sched(SCHED_LOGFIT, items, 1, 16, true, 132, 0);
	first = best / simulate_on(s, 16, true, items, 10, 0, &o).makespan;
	ck_assert(sched_profile(s, &p));
	sched_free(s);
	s = new_sched(SCHED_LOGFIT, items, 1, 16, true, 132, 0);
	sched_prime(s, &p);
	second = best / simulate_on(s, 16, true, items, 10, 0, &o).makespan;
	ck_assert(sched_profile(s, &p));
	fprintf(stderr,
	        "Jacobi 2048 rows, H100 and 16 cores: oracle %.0f %% to the GPU; LogFit %.3f of "
	        "it, %.3f primed (GPU share %.0f %%)\n",
	        share * 100, first, second, p.share * 100);
	ck_assert_msg(first >= 1.05, "first run: %.3f of the oracle", first);
	ck_assert_msg(second >= 1.05, "primed: %.3f of the oracle", second);
	sched_free(s);
}
END_TEST

/* ---- a core's fixed cost per chunk (sched-cost.c) ---- */

/* Core dev runs its next chunk in fixed + per_item·size ms, and reports the fixed cost where
 * report; returns the chunk's size. */
static size_t core_runs(struct sched *s, unsigned dev, double fixed, double per_item, bool report)
{
	struct sched_chunk c;

	ck_assert_int_eq(sched_next(s, dev, &c), SCHED_CHUNK);
	if (report)
		sched_fixed(s, dev, fixed);
	sched_done(s, dev, &c, fixed + per_item * (double)c.size);
	return c.size;
}

/* One step of two cores taking turns; the sizes of their first three chunks in *first. */
static void cores_step(struct sched *s, double fixed, double per_item, bool report, size_t *first)
{
	unsigned k = 0;
	struct sched_chunk c;

	sched_step_begin(s);
	while (sched_assigned(s) < 1000) {
		size_t n = core_runs(s, k % 2, fixed, per_item, report);

		if (k < 3)
			first[k] = n;
		k++;
	}
	ck_assert_int_eq(sched_next(s, 0, &c), SCHED_DONE);
	sched_step_end(s);
}

/* Two cores alone, 1000 items, chunks of 1 ms fixed cost + 0.01 ms an item. The first step
 * is guided (250, 188, 141: a quarter, then half of what is left over the cores), and learns
 * the fixed cost; a chunk whose fixed cost is a quarter of its time has 1 · 3 / 0.01 = 300
 * items, so LogFit's second step takes 300, 300 and then an equal share of the 400 left, 200.
 * Static keeps the guided sizes, and so does LogFit where no fixed cost is reported (a queue
 * without profiling). */
START_TEST(test_logfit_cores_take_chunks_that_cover_their_fixed_cost)
{
	size_t first[3], guided[3] = {250, 188, 141}, learnt[3] = {300, 300, 200};
	struct sched *s = new_sched(SCHED_LOGFIT, 1000, 1, 2, false, 1, 0);
	struct sched *st = new_sched(SCHED_STATIC, 1000, 1, 2, false, 1, 0);

	cores_step(s, 1.0, 0.01, true, first);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(first[i], guided[i]);
	cores_step(s, 1.0, 0.01, true, first);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(first[i], learnt[i]);
	cores_step(st, 1.0, 0.01, true, first);
	cores_step(st, 1.0, 0.01, true, first);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(first[i], guided[i]);
	sched_free(s);
	s = new_sched(SCHED_LOGFIT, 1000, 1, 2, false, 1, 0);
	cores_step(s, 1.0, 0.01, false, first);
	cores_step(s, 1.0, 0.01, false, first);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(first[i], guided[i]);
	sched_free(s);
	sched_free(st);
}
END_TEST

/* 16 cores alone on a load, LogFit's time against Static's: LogFit at most at_most of it, and
 * no faster than least. */
static void cores_alone_vs_static(const char *what, const struct simopts *o, size_t items,
                                  size_t granule, unsigned steps, int shape, double at_most,
                                  double least)
{
	struct sched *lf = new_sched(SCHED_LOGFIT, items, granule, 16, false, 1, 0);
	struct sched *st = new_sched(SCHED_STATIC, items, granule, 16, false, 1, 0);
	double l = simulate_on(lf, 16, false, items, steps, shape, o).makespan,
	       t = simulate_on(st, 16, false, items, steps, shape, o).makespan;

	fprintf(stderr, "16 cores alone, %s: LogFit %.2f ms, Static %.2f ms, least %.2f ms\n", what,
	        l, t, least);
	ck_assert_msg(l <= at_most * t, "%s: LogFit %.2f ms, Static %.2f ms", what, l, t);
	ck_assert_msg(l >= least, "%s: LogFit %.2f ms, below the least possible %.2f ms", what, l,
	              least);
	sched_free(lf);
	sched_free(st);
}

/* The Jacobi grid's 16 cores alone (the machine of the test above, no GPU): guided chunks of
 * 64 rows and less spend 0.34 ms each; LogFit's, no smaller than 58 rows where the share
 * allows, take at most 0.9 of Static's time, and no less than the least a core needs for an
 * equal share of each step in one chunk. */
START_TEST(test_logfit_cores_alone_amortise_a_fixed_cost)
{
	struct simopts o = {10.0, 1.0 / 57.0, 0.34, 0.22, 2.1, true, false};

	cores_alone_vs_static("Jacobi", &o, 2048, 1, 10, 0, 0.9, 10 * (0.34 + 2048.0 / 16 / 57.0));
}
END_TEST

/* 16 cores alone on irregular work whose items are cheap beside a chunk's fixed cost (0.1 us
 * an item, 0.3 ms a chunk, as Mandelbrot's light rows on the H200's cores): a hot region (20
 * times the work in the middle fifth) and a ramp. LogFit's smallest chunk must not make it
 * slower than Static's guided chunks. (The simulation does not reproduce the H200's failure
 * of a minimum sized on the first, light chunks: it passes with that estimate too.) */
START_TEST(test_logfit_cores_alone_fixed_cost_on_irregular_work)
{
	struct simopts o = {10.0, 1e-4, 0.3, 0.22, 0, true, false};

	cores_alone_vs_static("a hot region", &o, 1 << 18, 64, 4, 1, 1.0, 0);
	cores_alone_vs_static("a ramp", &o, 1 << 18, 64, 4, 2, 1.0, 0);
}
END_TEST

/* 16 cores alone on the neighbour benchmark's load (the H200's cores: a chunk costs 0.3 ms
 * and 1 us an item, 80 us in the dense cells of the space's 72-86 %). Guided chunks of items
 * reach the dense cells when a quarter of the space is left, at 1/32 of it, 92 ms a chunk; the
 * cost map learnt in the first step sizes the next steps' chunks by their time instead.
 * LogFit's first step is Static's (126 ms), its next three take 103 ms each against an equal
 * share's 99: its 4 steps take at most 0.9 of Static's (0.863), and no less than an equal
 * share of the work. */
START_TEST(test_logfit_cores_alone_size_chunks_by_the_cost_map)
{
	struct simopts o = {10.0, 1e-3, 0.3, 0.22, 0, true, false};
	double n = 131072;

	cores_alone_vs_static("dense cells", &o, 131072, 64, 4, 3, 0.9,
	                      4 * (0.86 * n + 0.14 * n * 80) * 1e-3 / 16);
}
END_TEST

/* The map a run learnt starts the next one (the knowledge base's cost map): on the dense
 * cells, its first step is balanced too, where a run without a map sizes it by items (4
 * steps: 434.8 ms from nothing, 413.8 primed). */
START_TEST(test_logfit_cores_alone_primed_with_a_cost_map)
{
	struct simopts o = {10.0, 1e-3, 0.3, 0.22, 0, true, false};
	size_t n = 131072;
	double map[KB_MAP_REGIONS], first, second;
	struct sched *s = new_sched(SCHED_LOGFIT, n, 64, 16, false, 1, 0);
	struct sched *st = new_sched(SCHED_STATIC, n, 64, 16, false, 1, 0);

	first = simulate_on(s, 16, false, n, 4, 3, &o).makespan;
	ck_assert(sched_profile_map(s, map, KB_MAP_REGIONS));
	ck_assert(!sched_profile_map(st, map + 1, KB_MAP_REGIONS - 1)); /* Static keeps none */
	sched_free(s);
	s = new_sched(SCHED_LOGFIT, n, 64, 16, false, 1, 0);
	sched_prime_map(s, map, KB_MAP_REGIONS);
	second = simulate_on(s, 16, false, n, 4, 3, &o).makespan;
	fprintf(stderr,
	        "16 cores alone, dense cells: LogFit %.2f ms, primed with its map %.2f ms\n", first,
	        second);
	ck_assert_msg(second <= 0.97 * first, "primed %.2f ms, first %.2f ms", second, first);
	sched_free(s);
	sched_free(st);
}
END_TEST

/* One core and a core standing in for the GPU (as fast; a chunk costs 0.1 ms) on a hot region
 * in the middle fifth (20 times the work), 8 steps: the oracle splits in the middle. A run
 * primed from the first's profile and cost map shares each step by its cost, not its items:
 * at least 0.95 of the oracle's throughput. */
START_TEST(test_logfit_standin_shares_by_cost)
{
	struct simopts o = {1.0, 1e-3, 0.1, 0.1, 0, true, false};
	struct sched_cfg cfg = {SCHED_LOGFIT, 65536, 64, 1, true, 1, 0, LOGFIT_THLD, true};
	double map[KB_MAP_REGIONS], share, best = oracle_on(65536, 64, 1, 8, 1, &o, &share), second;
	const char *why;
	struct sched *s = sched_new(&cfg, &why);
	struct sched_prior p;

	simulate_on(s, 1, true, 65536, 8, 1, &o);
	ck_assert(sched_profile(s, &p));
	ck_assert(sched_profile_map(s, map, KB_MAP_REGIONS));
	sched_free(s);
	s = sched_new(&cfg, &why);
	sched_prime(s, &p);
	sched_prime_map(s, map, KB_MAP_REGIONS);
	second = best / simulate_on(s, 1, true, 65536, 8, 1, &o).makespan;
	fprintf(stderr,
	        "a core standing in, hot region: oracle %.0f %%; LogFit primed %.3f of it\n",
	        share * 100, second);
	ck_assert_msg(second >= 0.95, "primed: %.3f of the oracle", second);
	sched_free(s);
}
END_TEST

/* One core and a core standing in for the GPU, the stand-in asking first at each step (as on
 * the dev VM, where it has no copies to write), on work whose first items are light: the
 * stand-in's samples, all on them, fit G = a/thld beyond the space, and it took the whole
 * first step. A fit of the whole step's throughput falls with the size and leaves G where it
 * was, so it took every later step whole too, before the core asked: twice the split's time
 * (Mandelbrot, dev VM, 4 runs of 6). A first run is to split its later steps: at least 0.85
 * of the oracle's throughput over 8 steps (the first step, the stand-in's alone, costs 0.06).
 */
START_TEST(test_logfit_standin_asking_first_splits_a_first_run)
{
	struct simopts o = {1.0, 1e-3, 0.1, 0.1, 0, true, true};
	struct sched_cfg cfg = {SCHED_LOGFIT, 65536, 64, 1, true, 1, 0, LOGFIT_THLD, true};
	double share, best = oracle_on(65536, 64, 1, 8, 4, &o, &share), first;
	const char *why;
	struct sched *s = sched_new(&cfg, &why);
	struct simresult r = simulate_on(s, 1, true, 65536, 8, 4, &o);

	first = best / r.makespan;
	fprintf(stderr,
	        "a core standing in, asking first, light first items: oracle %.0f %%; LogFit's "
	        "first run %.3f of it, %.0f %% to the stand-in\n",
	        share * 100, first, r.gpu_share * 100);
	ck_assert_msg(first >= 0.85, "%.3f of the oracle", first);
	sched_free(s);
}
END_TEST

/* LogFit's time over the oracle's (best) for a first run with a granule of 64 and a GPU of 132
 * compute units, and for a second one primed with what the first learnt (*p). */
static void first_then_primed(size_t items, unsigned ncpu, unsigned steps, int shape,
                              const struct simopts *o, double best, double *first, double *second,
                              struct sched_prior *p)
{
	struct sched *s = new_sched(SCHED_LOGFIT, items, 64, ncpu, true, 132, 0);

	*first = best / simulate_on(s, ncpu, true, items, steps, shape, o).makespan;
	ck_assert(sched_profile(s, p));
	sched_free(s);
	s = new_sched(SCHED_LOGFIT, items, 64, ncpu, true, 132, 0);
	sched_prime(s, p);
	*second = best / simulate_on(s, ncpu, true, items, steps, shape, o).makespan;
	sched_free(s);
}

/* A GPU ten cores' worth beside 4 cores whose chunks cost 2 ms each besides 1 µs an item: a
 * step of 64 Ki items takes the GPU alone 6.6 ms, and a core's chunk could shorten it only by
 * being small, where its fixed cost outweighs its items (the oracle gives the GPU 99 %). A
 * core's throughput measured on larger chunks spreads that cost thin, and by it one granule
 * looked far cheaper than any chunk is: the cores kept taking chunks, and a first run reached
 * 0.835 of the oracle. A core's least chunk is never less than its fixed cost
 * (sched_least_chunk_ms): at least 0.95, first run and primed. */
START_TEST(test_logfit_core_sits_out_where_its_fixed_cost_outlasts_the_gpu)
{
	struct simopts o = {10.0, 1e-3, 2.0, 0.01, 0, true, false};
	double share, best = oracle_on(65536, 64, 4, 8, 0, &o, &share), first, second;
	struct sched_prior p;

	first_then_primed(65536, 4, 8, 0, &o, best, &first, &second, &p);
	fprintf(stderr,
	        "a 10-core GPU beside 4 cores of 2 ms chunks: oracle %.0f %%; LogFit %.3f of it, "
	        "%.3f primed\n",
	        share * 100, first, second);
	ck_assert_msg(first >= 0.95, "first run: %.3f of the oracle", first);
	ck_assert_msg(second >= 0.95, "primed: %.3f of the oracle", second);
}
END_TEST

/* 16 cores beside a GPU 25 times their worth (chunks of 0.25 ms fixed cost), on the
 * neighbours' dense cells (80 times the work at 72-86 % of the space): a first run's cores
 * measured light regions only. Their throughput set 31 % of the next run's first step aside
 * for them, and the run took 6 times the oracle's time; a primed run gives the GPU no less
 * than the share it took before, and is within 5 % of the oracle. */
START_TEST(test_logfit_primed_keeps_the_gpus_share_of_the_run_before)
{
	struct simopts o = {400.0, 1e-3, 0.25, 0.01, 0, true, false};
	double share, best = oracle_on(262144, 64, 16, 2, 3, &o, &share), first, second;
	struct sched_prior p;

	first_then_primed(262144, 16, 2, 3, &o, best, &first, &second, &p);
	fprintf(stderr,
	        "a GPU 25 x 16 cores, dense cells: oracle %.0f %%; the first run gave the GPU "
	        "%.1f %%; LogFit primed %.3f of the oracle\n",
	        share * 100, p.share * 100, second);
	ck_assert_msg(second >= 0.95, "primed: %.3f of the oracle", second);
}
END_TEST

/* ---- marrow (001 §3.2-3.3) ---- */

/* A pair of devices, one core and a GPU four times as fast: the binary search ends where
 * both finish together, 80 % to the GPU. */
START_TEST(test_marrow_binary_search_balances_a_pair)
{
	size_t items = 1 << 18;
	struct sched *s = new_sched(SCHED_MARROW, items, 64, 1, true, 16, 0);
	struct sched_prior p;
	struct sched_chunk c;

	simulate(s, 1, true, items, 12, 0, 4.0);
	ck_assert(sched_profile(s, &p));
	ck_assert_msg(fabs(p.share - 0.8) < 0.03, "split %.3f", p.share);
	/* Primed with a split it starts there: the GPU's one chunk. */
	sched_free(s);
	s = new_sched(SCHED_MARROW, items, 64, 1, true, 16, 0);
	sched_prime(s, &p);
	sched_step_begin(s);
	ck_assert_int_eq(sched_next(s, 1, &c), SCHED_CHUNK);
	ck_assert_int_eq(c.phase, PHASE_BALANCE);
	ck_assert_uint_eq(c.size, (size_t)(p.share * (double)(items / 64) + 0.5) * 64);
	sched_free(s);
}
END_TEST

/* At a split of 100 % no core is woken for the step; at 50 % every one is. */
START_TEST(test_marrow_wakes_cores_only_for_their_part)
{
	struct sched_prior all = {1.0, 100000.0, 10.0}, half = {0.5, 100.0, 100.0};
	struct sched *s = new_sched(SCHED_MARROW, 1 << 16, 64, 4, true, 132, 0);

	sched_prime(s, &all);
	sched_step_begin(s);
	ck_assert(sched_uses(s, 4));
	for (unsigned d = 0; d < 4; d++)
		ck_assert(!sched_uses(s, d));
	sched_free(s);
	s = new_sched(SCHED_MARROW, 1 << 16, 64, 4, true, 132, 0);
	sched_prime(s, &half);
	sched_step_begin(s);
	for (unsigned d = 0; d < 5; d++)
		ck_assert(sched_uses(s, d));
	sched_free(s);
}
END_TEST

/* A drift: the GPU slows down by half after the split converged; three unbalanced steps
 * start a new search (001 §3.3), which finds the new balance, 2/3. */
START_TEST(test_marrow_searches_again_when_the_times_drift)
{
	size_t items = 1 << 18;
	struct sched *s = new_sched(SCHED_MARROW, items, 64, 1, true, 16, 0);
	struct sched_prior p;

	simulate(s, 1, true, items, 12, 0, 4.0);
	simulate(s, 1, true, items, 16, 0, 2.0);
	ck_assert(sched_profile(s, &p));
	ck_assert_msg(fabs(p.share - 2.0 / 3.0) < 0.03, "split %.3f", p.share);
	sched_free(s);
}
END_TEST

/* Beside a GPU 300 times a core the oracle gives the cores 1 %: a primed run stays at the
 * split its first run found (within Marrow's 5 % tolerance of balance), instead of moving
 * 1/16 of the work to the cores (0.48 of the oracle before moves were capped at the
 * balance the step's throughputs give). */
START_TEST(test_marrow_primed_stays_on_a_300x_gpu)
{
	size_t items = 1 << 18;
	double share, best = oracle_ms(items, 64, 4, 8, 0, 300.0, &share);
	struct sched *s = new_sched(SCHED_MARROW, items, 64, 4, true, 132, 0);
	struct sched_prior p;
	double second;

	simulate(s, 4, true, items, 8, 0, 300.0);
	ck_assert(sched_profile(s, &p));
	sched_free(s);
	s = new_sched(SCHED_MARROW, items, 64, 4, true, 132, 0);
	sched_prime(s, &p);
	second = best / simulate(s, 4, true, items, 8, 0, 300.0).makespan;
	sched_free(s);
	fprintf(stderr, "300x GPU: Marrow's split %.3f, primed run %.3f of the oracle (%.0f %%)\n",
	        p.share, second, share * 100);
	ck_assert_msg(second >= 0.95, "primed: %.3f of the oracle", second);
}
END_TEST

/* ---- the knowledge base (001 §3.2) ---- */

static char *kb_tmp(const char *text)
{
	char *path = strdup("/tmp/check_partition_kbXXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	return path;
}

/* Between two known sizes the profile is the line between them; outside, the nearest. */
START_TEST(test_kb_interpolates_between_sizes)
{
	char *path = kb_tmp("");
	struct part_kb *kb = kb_open(path);
	struct kb_key k = {"/m.xml", "k", "gpu + 2 x cpu", 1000};
	struct sched_prior p = {0.5, 1000, 10}, q;
	struct cs_err e;

	ck_assert_str_eq(kb->warning, "");
	kb_learn(kb, &k, &p, 2.0);
	k.items = 3000;
	p = (struct sched_prior){0.9, 3000, 30};
	kb_learn(kb, &k, &p, 4.0);
	ck_assert_int_eq(kb_save(kb, &e), 0);
	kb_free(kb);
	kb = kb_open(path);
	ck_assert_uint_eq(kb->n, 2);
	k.items = 1500;
	ck_assert(kb_lookup(kb, &k, &q));
	ck_assert_double_eq_tol(q.share, 0.6, 1e-9);
	ck_assert_double_eq_tol(q.lgpu, 1500, 1e-6);
	ck_assert_double_eq_tol(q.lcpu, 15, 1e-6);
	k.items = 9000;
	ck_assert(kb_lookup(kb, &k, &q));
	ck_assert_double_eq_tol(q.share, 0.9, 1e-9);
	k.devices = "gpu + 3 x cpu"; /* another device set knows nothing */
	ck_assert(!kb_lookup(kb, &k, &q));
	ck_assert_uint_eq(kb_forget(kb, "/m.xml"), 2);
	kb_free(kb);
	unlink(path);
	free(path);
}
END_TEST

/* A cost map is kept beside the profile of its key, interpolated region by region between
 * sizes, listed on its profile's line (an entry of its own without one), and forgotten with
 * it. */
START_TEST(test_kb_keeps_a_cost_map)
{
	char *path = kb_tmp(""), *text = NULL;
	struct part_kb *kb = kb_open(path);
	struct kb_key k = {"/m.xml", "k", "2 x cpu", 1000};
	struct sched_prior p = {0.5, 1000, 10};
	double a[KB_MAP_REGIONS], b[KB_MAP_REGIONS], got[KB_MAP_REGIONS];
	size_t len = 0;
	FILE *f;
	struct cs_err e;

	for (int i = 0; i < KB_MAP_REGIONS; i++) {
		a[i] = 0.001 * (i + 1);
		b[i] = 0.003 * (i + 1);
	}
	kb_learn_map(kb, &k, a);
	ck_assert_uint_eq(kb->n, 1); /* a map alone is an entry */
	kb_learn(kb, &k, &p, 2.0);
	ck_assert_uint_eq(kb->n, 1); /* with its profile, one */
	k.items = 3000;
	kb_learn_map(kb, &k, b);
	ck_assert_int_eq(kb_save(kb, &e), 0);
	kb_free(kb);
	kb = kb_open(path);
	ck_assert_str_eq(kb->warning, "");
	ck_assert_uint_eq(kb->n, 2);
	k.items = 2000;
	ck_assert(kb_lookup_map(kb, &k, got));
	for (int i = 0; i < KB_MAP_REGIONS; i++)
		ck_assert_double_eq_tol(got[i], 0.002 * (i + 1), 1e-12);
	f = open_memstream(&text, &len);
	kb_print(f, kb);
	fclose(f);
	ck_assert_msg(strstr(text, "1000 items: GPU 50.0 %, GPU 1000 items/ms, core 10 items/ms, "
	                           "step 2.000 ms, a cost map of 64 regions: a core "
	                           "0.001-0.064 ms an item\n"),
	              "%s", text);
	ck_assert_msg(strstr(text, "3000 items: a cost map of 64 regions: a core 0.003-0.192 ms "
	                           "an item\n"),
	              "%s", text);
	free(text);
	ck_assert_uint_eq(kb_forget(kb, "/m.xml"), 2);
	ck_assert(!kb_lookup_map(kb, &k, got));
	kb_free(kb);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(test_kb_corrupt_or_foreign_file_is_rebuilt)
{
	const char *texts[] = {"carsh-profiles 1\npartition\t/m.xml\tk\td\tten\t0.5\t1\t1\t1\n",
	                       "carsh-profiles 2\n", "\177ELF\n"};
	const char *why[] = {":2: not an entry (it is rebuilt)", "has version 2, not 1",
	                     "is not a profile history"};
	struct cs_err e;

	for (size_t i = 0; i < ARRAY_LEN(texts); i++) {
		char *path = kb_tmp(texts[i]);
		struct part_kb *kb = kb_open(path);
		char line[64];
		FILE *f;

		ck_assert_uint_eq(kb->n, 0);
		ck_assert_msg(strstr(kb->warning, why[i]), "%s", kb->warning);
		ck_assert_ptr_null(strchr(kb->warning, '\n'));
		ck_assert_int_eq(kb_save(kb, &e), 0);
		kb_free(kb);
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
		ck_assert_str_eq(line, "carsh-profiles 1\n");
		ck_assert_ptr_null(fgets(line, sizeof(line), f));
		fclose(f);
		unlink(path);
		free(path);
	}
}
END_TEST

/* The launch gate for PoCL (runtime/launchguard.h): a launch runs alone when it uses the
 * zero-offset variant or is wider at a non-zero offset than any before it. Each test uses
 * a key of its own: the widths are remembered for the process. */
static bool gate_on(const void *dev, uint64_t key, size_t local, size_t off, size_t count,
                    size_t piece)
{
	bool alone = rt_launch_enter(key, dev, local, off, count, piece);

	rt_launch_leave(alone);
	return alone;
}

static bool gate(uint64_t key, size_t local, size_t off, size_t count, size_t piece)
{
	return gate_on(NULL, key, local, off, count, piece);
}

START_TEST(test_gate_zero_offset_runs_alone)
{
	uint64_t k = rt_launch_key("zero", "src", "");

	ck_assert(gate(k, 8, 0, 64, 128));
	ck_assert(gate(k, 8, 0, 64, 128));
	ck_assert(gate(k, 8, 8, 64, 128));   /* the first at a non-zero offset */
	ck_assert(!gate(k, 8, 80, 64, 128)); /* as wide: shares */
}
END_TEST

START_TEST(test_gate_wider_launches_run_alone_once)
{
	uint64_t k = rt_launch_key("wide", "src", "");

	ck_assert_uint_eq(rt_launch_widest(k, 8), 0);
	ck_assert(gate(k, 8, 8, 16, 128));
	ck_assert_uint_eq(rt_launch_widest(k, 8), 16);
	ck_assert(!gate(k, 8, 64, 16, 128));
	ck_assert(!gate(k, 8, 64, 8, 128));
	ck_assert(gate(k, 8, 64, 200, 128)); /* pieces of 128: wider than 16 */
	ck_assert(!gate(k, 8, 64, 128, 128));
	ck_assert(!gate(k, 8, 64, 1000, 128)); /* every piece at most 128 */
	ck_assert_uint_eq(rt_launch_widest(k, 8), 128);
	ck_assert(gate(k, 16, 64, 16, 128)); /* another local size: another variant */
	ck_assert(gate(rt_launch_key("wide", "src", "-DX"), 8, 64, 16, 128));
}
END_TEST

START_TEST(test_gate_counts_the_pieces_after_a_zero_offset)
{
	uint64_t k = rt_launch_key("pieces", "src", "");

	ck_assert(gate(k, 8, 0, 200, 128));   /* pieces [0,128) and [128,200): 72 wide */
	ck_assert(!gate(k, 8, 256, 72, 128)); /* no wider than that piece */
	ck_assert(gate(k, 8, 256, 80, 128));
	ck_assert(rt_launch_key("ab", "c", "") != rt_launch_key("a", "bc", ""));
}
END_TEST

/* A chunk at offset 0 goes through the gate in two (part_run_chunk): its first granule
 * alone, the rest beside the others, once the rest's width is known; whole, the chunk held
 * every other launch back for as long as it ran, at every step. */
START_TEST(test_gate_chunk_at_zero_shares_after_its_first_granule)
{
	uint64_t k = rt_launch_key("head", "src", "");

	ck_assert(gate(k, 8, 0, 8, 128));    /* the head */
	ck_assert(gate(k, 8, 8, 392, 128));  /* the rest, wider than any before: once */
	ck_assert(gate(k, 8, 0, 8, 128));    /* the next step's head */
	ck_assert(!gate(k, 8, 8, 392, 128)); /* its rest shares */
	ck_assert(!gate(k, 8, 400, 64, 128));
}
END_TEST

/* Two PoCL devices compile variants of their own: a launch on the other device runs alone,
 * once; then the launches on it share again. */
START_TEST(test_gate_another_device_runs_alone)
{
	static const int a = 1, b = 2; /* two devices' addresses */
	uint64_t k = rt_launch_key("devices", "src", "");

	ck_assert(gate_on(&a, k, 8, 8, 16, 128));
	ck_assert(!gate_on(&a, k, 8, 64, 16, 128));
	ck_assert(gate_on(&b, k, 8, 64, 16, 128)); /* the other device */
	ck_assert(!gate_on(&b, k, 8, 64, 16, 128));
	ck_assert(gate_on(&a, k, 8, 64, 16, 128)); /* and back */
}
END_TEST

/* ---- the space cut in rows (2-D, 3-D) ---- */

START_TEST(test_space_1d_is_cut_in_work_items)
{
	size_t g[1] = {1000}, off, len;
	struct part_space sp;

	part_space_init(&sp, 1, g, NULL);
	ck_assert_uint_eq(sp.rows, 1000);
	ck_assert_uint_eq(sp.row_items, 1);
	ck_assert_uint_eq(sp.granule, 8); /* the largest power of two up to 64 dividing 1000 */
	/* float4 with unit 2: 32 bytes a work-item */
	part_rows_bytes(&sp, 2, 16, 8, 24, &off, &len);
	ck_assert_uint_eq(off, 8 * 32);
	ck_assert_uint_eq(len, 16 * 32);
}
END_TEST

/* Rows [4, 12) of a 48 x 40 float image: from work-item (0, 4) to (47, 11), row-major. */
START_TEST(test_space_2d_rows_are_one_byte_range)
{
	size_t g[2] = {48, 40}, off, len;
	size_t first = (4 * 48 + 0) * sizeof(float), end = (11 * 48 + 47 + 1) * sizeof(float);
	struct part_space sp;

	part_space_init(&sp, 2, g, NULL);
	ck_assert_uint_eq(sp.rows, 40);
	ck_assert_uint_eq(sp.row_items, 48);
	part_rows_bytes(&sp, 1, sizeof(float), 4, 12, &off, &len);
	ck_assert_uint_eq(off, first);
	ck_assert_uint_eq(len, end - first);
}
END_TEST

/* Planes [2, 5) of a 6 x 5 x 8 space of double3-like units (3 doubles a work-item). */
START_TEST(test_space_3d_planes_are_one_byte_range)
{
	size_t g[3] = {6, 5, 8}, off, len;
	size_t first = ((2 * 5 + 0) * 6 + 0) * 3 * 8, end = ((4 * 5 + 4) * 6 + 5 + 1) * 3 * 8;
	struct part_space sp;

	part_space_init(&sp, 3, g, NULL);
	ck_assert_uint_eq(sp.rows, 8);
	ck_assert_uint_eq(sp.row_items, 30);
	part_rows_bytes(&sp, 3, 8, 2, 5, &off, &len);
	ck_assert_uint_eq(off, first);
	ck_assert_uint_eq(len, end - first);
}
END_TEST

START_TEST(test_space_launch_offsets_only_the_last_dimension)
{
	size_t g2[2] = {48, 40}, g3[3] = {6, 5, 8}, off[3], size[3];
	struct part_space sp;

	part_space_init(&sp, 2, g2, NULL);
	part_space_launch(&sp, 12, 8, off, size);
	ck_assert(off[0] == 0 && off[1] == 12 && off[2] == 0);
	ck_assert(size[0] == 48 && size[1] == 8 && size[2] == 1);
	part_space_init(&sp, 3, g3, NULL);
	part_space_launch(&sp, 2, 3, off, size);
	ck_assert(off[0] == 0 && off[1] == 0 && off[2] == 2);
	ck_assert(size[0] == 6 && size[1] == 5 && size[2] == 3);
}
END_TEST

/* Without a local size: each dimension's largest power of two dividing it, at most 64
 * work-items a group, the granule the last dimension's; with one, the flow-model's. */
START_TEST(test_space_granule_is_the_last_dimensions_local_size)
{
	size_t g[3] = {48, 40, 1}, big[3] = {1024, 1024, 1024}, small[3] = {2, 2, 64};
	size_t given[2] = {8, 2};
	struct part_space sp;

	part_space_init(&sp, 2, g, NULL);
	ck_assert(sp.local[0] == 16 && sp.local[1] == 4 && sp.granule == 4);
	part_space_init(&sp, 3, big, NULL);
	ck_assert(sp.local[0] == 64 && sp.local[1] == 1 && sp.local[2] == 1 && sp.granule == 1);
	part_space_init(&sp, 3, small, NULL);
	ck_assert_uint_eq(sp.granule, 16);
	ck_assert_uint_eq(part_space_group(&sp), 64);
	part_space_init(&sp, 2, g, given);
	ck_assert(sp.granule == 2 && part_space_group(&sp) == 16);
}
END_TEST

static Suite *suite_partition(void)
{
	Suite *s = suite_create("partition");
	TCase *t = tcase_create("logfit");

	tcase_add_test(t, test_fit_recovers_an_exact_log_curve);
	tcase_add_test(t, test_fit_matches_the_normal_equations_by_hand);
	tcase_add_test(t, test_fit_needs_two_distinct_sizes);
	tcase_add_test(t, test_no_gpu_chunk_from_a_falling_curve);
	tcase_add_test(t, test_cpu_chunk_is_gpu_chunk_times_throughput_ratio);
	tcase_add_test(t, test_samples_double_from_the_compute_units);
	tcase_add_test(t, test_logfit_samples_then_chunk_a_over_thld);
	tcase_add_test(t, test_logfit_replaces_the_fourth_sample_with_the_last_chunk);
	tcase_add_test(t, test_logfit_cpu_chunk_follows_the_gpu_chunk);
	tcase_add_test(t, test_logfit_core_sits_out_beside_a_much_faster_gpu);
	tcase_add_test(t, test_logfit_remembers_its_samples_across_steps);
	tcase_add_test(t, test_chunks_are_multiples_of_the_granule);
	suite_add_tcase(s, t);
	t = tcase_create("baselines");
	tcase_add_test(t, test_static_gives_the_gpu_one_chunk_of_its_share);
	tcase_add_test(t, test_without_a_gpu_every_scheduler_is_the_cores);
	tcase_add_test(t, test_concord_profiles_once_then_splits);
	tcase_add_test(t, test_hdss_trains_again_in_every_step);
	suite_add_tcase(s, t);
	t = tcase_create("knowledge base");
	tcase_add_test(t, test_kb_interpolates_between_sizes);
	tcase_add_test(t, test_kb_keeps_a_cost_map);
	tcase_add_test(t, test_kb_corrupt_or_foreign_file_is_rebuilt);
	suite_add_tcase(s, t);
	t = tcase_create("launch gate");
	tcase_add_test(t, test_gate_zero_offset_runs_alone);
	tcase_add_test(t, test_gate_wider_launches_run_alone_once);
	tcase_add_test(t, test_gate_counts_the_pieces_after_a_zero_offset);
	tcase_add_test(t, test_gate_another_device_runs_alone);
	tcase_add_test(t, test_gate_chunk_at_zero_shares_after_its_first_granule);
	suite_add_tcase(s, t);
	t = tcase_create("space");
	tcase_add_test(t, test_space_1d_is_cut_in_work_items);
	tcase_add_test(t, test_space_2d_rows_are_one_byte_range);
	tcase_add_test(t, test_space_3d_planes_are_one_byte_range);
	tcase_add_test(t, test_space_launch_offsets_only_the_last_dimension);
	tcase_add_test(t, test_space_granule_is_the_last_dimensions_local_size);
	suite_add_tcase(s, t);
	t = tcase_create("simulation");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_every_scheduler_hands_out_each_item_once);
	tcase_add_test(t, test_logfit_balances_a_regular_load);
	tcase_add_test(t, test_logfit_sits_cores_out_beside_a_300x_gpu);
	tcase_add_test(t, test_logfit_primed_skips_the_exploration_of_a_short_step);
	tcase_add_test(t, test_logfit_primed_keeps_a_late_gpu_share);
	tcase_add_test(t, test_logfit_core_left_nothing_is_asked_every_fourth_step);
	tcase_add_test(t, test_logfit_primed_whole_gpu_step_wakes_no_core);
	tcase_add_test(t, test_logfit_cores_take_chunks_that_cover_their_fixed_cost);
	tcase_add_test(t, test_logfit_cores_alone_amortise_a_fixed_cost);
	tcase_add_test(t, test_logfit_cores_alone_fixed_cost_on_irregular_work);
	tcase_add_test(t, test_logfit_cores_alone_size_chunks_by_the_cost_map);
	tcase_add_test(t, test_logfit_cores_alone_primed_with_a_cost_map);
	tcase_add_test(t, test_logfit_standin_shares_by_cost);
	tcase_add_test(t, test_logfit_standin_asking_first_splits_a_first_run);
	tcase_add_test(t, test_logfit_core_sits_out_where_its_fixed_cost_outlasts_the_gpu);
	tcase_add_test(t, test_logfit_primed_keeps_the_gpus_share_of_the_run_before);
	tcase_add_test(t, test_marrow_binary_search_balances_a_pair);
	tcase_add_test(t, test_marrow_searches_again_when_the_times_drift);
	tcase_add_test(t, test_marrow_wakes_cores_only_for_their_part);
	tcase_add_test(t, test_marrow_primed_stays_on_a_300x_gpu);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_partition());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

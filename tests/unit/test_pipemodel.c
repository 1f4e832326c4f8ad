/*
 * Unit tests of the pipeline engine's model (000 §IV-V; engines/pipeline/pipemodel.h): equations
 * 1-10 on synthetic measurements, each checked against the closed form worked out by hand in the
 * comment above it; the configuration space of 000 §II-B; the baseline of 000 §VI-B; the
 * configuration names; the throughput monitor. No OpenCL, no clocks. A program of its own
 * (check_pipeline).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engines/pipeline/pipechain.h"
#include "engines/pipeline/pipecheck.h"
#include "engines/pipeline/pipeconf.h"
#include "engines/pipeline/pipeknow.h"
#include "engines/pipeline/pipefit.h"
#include "engines/pipeline/pipemodel.h"
#include "engines/pipeline/pipemon.h"
#include "engines/pipeline/pipemove.h"
#include "engines/pipeline/pipetrain.h"

#define TOL 1e-9

static struct pm_energy en(double c, double g, double u)
{
	return (struct pm_energy){c, g, u};
}

/*
 * Three stages, nC = 2 cores and a GPU. Seconds per item:
 *            CG      MG      GPU
 *   stage 1  0.030   0.016   0.005
 *   stage 2  0.010   0.006   0.015
 *   stage 3  0.020   0.010   0.004
 * T^CG(1) = 0.060, T^CG(2) = 0.035, T^CG(3) = 0.030 (n items by n threads, per item).
 * Joules per item (C, G, U):
 *   CG:  (0.3, 0, 0.03) (0.1, 0, 0.01) (0.2, 0, 0.02); E^CG(1) = (0.6, 0, 0.06),
 *        E^CG(2) = (0.5, 0, 0.05), E^CG(3) = (0.45, 0, 0.045)
 *   MG:  (0.2, 0, 0.02) (0.08, 0, 0.01) (0.12, 0, 0.01)
 *   GPU: (0.01, 0.05, 0.005) (0.02, 0.15, 0.01) (0.01, 0.04, 0.005)
 */
static void fixture(struct pm_meas *m)
{
	static const double cg[3] = {0.030, 0.010, 0.020}, mg[3] = {0.016, 0.006, 0.010},
	                    g[3] = {0.005, 0.015, 0.004};

	memset(m, 0, sizeof(*m));
	m->sh = (struct pm_shape){3, 2, true, 7};
	m->energy = true;
	for (int k = 0; k < 3; k++) {
		m->st[k].t_cg = cg[k];
		m->st[k].t_mg = mg[k];
		m->st[k].t_g = g[k];
	}
	m->st[0].e_cg = en(0.3, 0, 0.03);
	m->st[1].e_cg = en(0.1, 0, 0.01);
	m->st[2].e_cg = en(0.2, 0, 0.02);
	m->st[0].e_mg = en(0.2, 0, 0.02);
	m->st[1].e_mg = en(0.08, 0, 0.01);
	m->st[2].e_mg = en(0.12, 0, 0.01);
	m->st[0].e_g = en(0.01, 0.05, 0.005);
	m->st[1].e_g = en(0.02, 0.15, 0.01);
	m->st[2].e_g = en(0.01, 0.04, 0.005);
	m->t_cgn[1] = 0.060;
	m->t_cgn[2] = 0.035;
	m->t_cgn[3] = 0.030;
	m->e_cgn[1] = en(0.6, 0, 0.06);
	m->e_cgn[2] = en(0.5, 0, 0.05);
	m->e_cgn[3] = en(0.45, 0, 0.045);
}

static struct pm_pred predict(const struct pm_meas *m, bool dp, bool mg, unsigned threads,
                              uint32_t mask)
{
	struct pm_config c = {dp, mg, threads, mask};
	struct pm_pred p;

	pm_predict(m, &c, &p);
	return p;
}

/*
 * The pool of two threads (engines/pipeline/pipechain.h) worked out by hand. States: (GPU
 * idle, a threads on the GPU-CPU path's CPU stages, 2 - a on the CPU path) and (GPU busy,
 * a, 1 - a); (idle, 0, 2) is never entered. Balance, with π(idle,1,1) = 1:
 *   (idle,2,0): 2μa·π = μg·π(busy,1,0)        (busy,1,0): (μg+μa)·π = μb + 2μa·π(idle,2,0)
 *   (idle,1,1): (μa+μb) = μg·π(busy,0,1)
 * so π(busy,1,0) = μb/μa, π(idle,2,0) = μb·μg/(2μa²), π(busy,0,1) = (μa+μb)/μg. An item
 * ends where a thread leaves its CPU stages (a·μa) or its CPU item (b·μb).
 */
static double pool_of_two(double tg, double ta, double tb, double *gc)
{
	double mg = 1 / tg, ma = 1 / ta, mb = 1 / tb;
	double p11 = 1, p10 = mb / ma, p20 = mb * mg / (2 * ma * ma), p01 = (ma + mb) / mg;
	double sum = p11 + p10 + p20 + p01;

	*gc = (p11 * ma + p20 * 2 * ma + p10 * ma) / sum;
	return *gc + (p11 * mb + p01 * mb) / sum;
}

/*
 * The same two threads under MG, where the items on the CPU of either path share the whole
 * CPU (pipechain.h): at (idle,1,1) each finishes at half its rate, at (idle,2,0) the two
 * GPU-CPU items together at μa. Balance, with π(idle,1,1) = 1:
 *   (idle,2,0): μa·π = μg·π(busy,1,0)         (busy,1,0): (μg+μa)·π = μb/2 + μa·π(idle,2,0)
 *   (idle,1,1): (μa+μb)/2 = μg·π(busy,0,1)
 * so π(busy,1,0) = μb/(2μa), π(idle,2,0) = μg·μb/(2μa²), π(busy,0,1) = (μa+μb)/(2μg).
 */
static double pool_of_two_shared(double tg, double ta, double tb, double *gc)
{
	double mg = 1 / tg, ma = 1 / ta, mb = 1 / tb;
	double p11 = 1, p10 = mb / (2 * ma), p20 = mg * mb / (2 * ma * ma),
	       p01 = (ma + mb) / (2 * mg);
	double sum = p11 + p10 + p20 + p01;

	*gc = (p11 * ma / 2 + p20 * ma + p10 * ma) / sum;
	return *gc + (p11 * mb / 2 + p01 * mb) / sum;
}

/* ---- Table III: decoupled ---- */

/* DP-CG, 3 threads: the GPU thread and n = 2 CPU threads.
 * μ_GPU = 1/(0.005+0.015+0.004) = 1/0.024 = 41.666..., μ_CPU(2) = 1/T^CG(2) = 1/0.035 =
 * 28.571428...; eq. 3: λ = 70.238095...; eq. 4-5: p_GPU = 41.6667/70.2381 = 0.593220...
 * eq. 7: E_GPU = p·(0.04, 0.24, 0.02) = (0.0237288, 0.1423729, 0.0118644),
 *        E_CPU = (1-p)·(0.5, 0, 0.05) = (0.2033898, 0, 0.0203390);
 * eq. 9: (0.2033898, 0.1423729, 0.0203390), sum = 0.3661017 (= 21.6/59). */
START_TEST(test_dp_cg_adds_the_gpu_path_and_the_cpu_path)
{
	struct pm_meas m;
	struct pm_pred p;

	fixture(&m);
	p = predict(&m, true, false, 3, 7);
	ck_assert_double_eq_tol(p.lambda, 1 / 0.024 + 1 / 0.035, TOL);
	ck_assert_double_eq_tol(p.p_gpu, (1 / 0.024) / (1 / 0.024 + 1 / 0.035), TOL);
	ck_assert_double_eq_tol(p.e_sum.c, 0.5 * (1 - p.p_gpu), TOL);
	ck_assert_double_eq_tol(p.e_sum.g, 0.24 * p.p_gpu, TOL);
	ck_assert_double_eq_tol(p.e_sum.u, 0.05 * (1 - p.p_gpu), TOL);
	ck_assert_double_eq_tol(p.energy, 21.6 / 59.0, 1e-9);
}
END_TEST

/* DP-CG with 1 thread is the GPU alone: λ = μ_GPU = 41.666..., p_GPU = 1, E = Σ ε_GPU =
 * 0.04 + 0.24 + 0.02 = 0.30. */
START_TEST(test_dp_cg_one_thread_is_the_gpu_alone)
{
	struct pm_meas m;
	struct pm_pred p;

	fixture(&m);
	p = predict(&m, true, false, 1, 7);
	ck_assert_double_eq_tol(p.lambda, 1 / 0.024, TOL);
	ck_assert_double_eq_tol(p.p_gpu, 1.0, TOL);
	ck_assert_double_eq_tol(p.energy, 0.30, TOL);
}
END_TEST

/* DP-MG: μ_CPU^MG = 1/(0.016+0.006+0.010) = 31.25; λ = 41.6667 + 31.25 = 72.916666...;
 * p_GPU = 41.6667/72.9167 = 4/7; ε_MG = (0.4, 0, 0.04);
 * E = max(4/7·0.04, 3/7·0.4) + max(4/7·0.24, 0) + max(4/7·0.02, 3/7·0.04)
 *   = 1.2/7 + 0.96/7 + 0.12/7 = 2.28/7. */
START_TEST(test_dp_mg_adds_the_gpu_and_the_whole_cpu)
{
	struct pm_meas m;
	struct pm_pred p;

	fixture(&m);
	p = predict(&m, true, true, 3, 7);
	ck_assert_double_eq_tol(p.lambda, 1 / 0.024 + 31.25, TOL);
	ck_assert_double_eq_tol(p.p_gpu, 4.0 / 7.0, TOL);
	ck_assert_double_eq_tol(p.energy, 2.28 / 7.0, TOL);
}
END_TEST

/* ---- the running phase's check (pipecheck.h), on simulated measurements ---- */

/* Two measurements 100 and 90: noise 10 %; 0 and 0: none; 0 and 5: all. */
START_TEST(test_check_noise_is_the_relative_difference)
{
	ck_assert_double_eq_tol(pcheck_noise(100, 90), 0.10, TOL);
	ck_assert_double_eq_tol(pcheck_noise(90, 100), 0.10, TOL);
	ck_assert_double_eq_tol(pcheck_noise(0, 0), 0, TOL);
	ck_assert_double_eq_tol(pcheck_noise(0, 5), 1, TOL);
}
END_TEST

/* Predicted 110, measured 100: 10 % off; with 12 % noise that is no disagreement, with 5 %
 * it is; with none at all the floor (2 %) still lets 101 against 100 pass. */
START_TEST(test_check_disagrees_only_beyond_the_noise)
{
	ck_assert(!pcheck_disagrees(110, 100, 0.12));
	ck_assert(pcheck_disagrees(110, 100, 0.05));
	ck_assert(pcheck_disagrees(90, 100, 0.05));
	ck_assert(!pcheck_disagrees(101, 100, 0));
	ck_assert(pcheck_disagrees(103, 100, 0));
}
END_TEST

/* The chosen one (index 0) measures 80, the baseline 100, noise 5 %: 80 < 95, so the check
 * switches to the baseline. At 96 (within 5 % of 100) it keeps the chosen one; so it does
 * at 80 when the noise is 25 %. Among several, the best measured wins. */
START_TEST(test_check_switches_below_the_baseline_and_not_within_the_noise)
{
	double below[] = {80, 70, 100}, within[] = {96, 70, 100}, many[] = {50, 120, 60, 100};

	ck_assert_uint_eq(pcheck_pick(below, 3, 0.05), 2);
	ck_assert_uint_eq(pcheck_pick(within, 3, 0.05), 0);
	ck_assert_uint_eq(pcheck_pick(below, 3, 0.25), 0);
	ck_assert_uint_eq(pcheck_pick(many, 4, 0.05), 1);
	ck_assert_uint_eq(pcheck_pick(below, 1, 0.05), 0);
}
END_TEST

/* Predictions 5, 9, 7, 9, 3 with 1 chosen: next come 3 (9, the later of the equals), then
 * 2 (7); asking for 10 gives the 4 others, best first. */
START_TEST(test_check_measures_the_configurations_ranked_next)
{
	struct pm_pred p[5] = {
	        {.lambda = 5}, {.lambda = 9}, {.lambda = 7}, {.lambda = 9}, {.lambda = 3}};
	size_t out[10];

	ck_assert_uint_eq(pcheck_next(p, 5, 1, PM_THROUGHPUT, out, 2), 2);
	ck_assert_uint_eq(out[0], 3);
	ck_assert_uint_eq(out[1], 2);
	ck_assert_uint_eq(pcheck_next(p, 5, 1, PM_THROUGHPUT, out, 10), 4);
	ck_assert_uint_eq(out[2], 0);
	ck_assert_uint_eq(out[3], 4);
}
END_TEST

/* The knowledge kept on disk: DP-CG measured at 0.5 and 0.8 of the model (geometric mean
 * 0.63246), CP-MG at 10 (clamped to 4); saved, read back by a second run; other families,
 * pipelines and machines get 1. */
START_TEST(test_knowledge_averages_corrections_and_keeps_them)
{
	char path[] = "/tmp/check_pipeline_kb_XXXXXX";
	int fd = mkstemp(path);
	struct cs_err e;
	struct pknow *k;

	ck_assert_int_ge(fd, 0);
	close(fd);
	k = pknow_open(path, "vivid", "cpu", "gpu");
	ck_assert_double_eq_tol(pknow_factor(k, 2), 1, TOL);
	pknow_learn(k, 2, 0.5);
	pknow_learn(k, 2, 0.8);
	pknow_learn(k, 1, 10);
	ck_assert_double_eq_tol(pknow_factor(k, 2), sqrt(0.4), TOL);
	ck_assert_int_eq(pknow_save(k, &e), 0);
	pknow_free(k);
	k = pknow_open(path, "vivid", "cpu", "gpu");
	ck_assert_double_eq_tol(pknow_factor(k, 2), sqrt(0.4), 1e-6);
	ck_assert_double_eq_tol(pknow_factor(k, 1), PKNOW_MAX_RATIO, 1e-6);
	ck_assert_double_eq_tol(pknow_factor(k, 0), 1, TOL);
	pknow_free(k);
	k = pknow_open(path, "srad", "cpu", "gpu");
	ck_assert_double_eq_tol(pknow_factor(k, 2), 1, TOL);
	pknow_free(k);
	k = pknow_open(path, "vivid", "cpu", "");
	ck_assert_double_eq_tol(pknow_factor(k, 2), 1, TOL);
	pknow_free(k);
	unlink(path);
}
END_TEST

START_TEST(test_config_families)
{
	ck_assert_str_eq(pcheck_family_name(pcheck_family(&(struct pm_config){true, false, 3, 7})),
	                 "DP-CG");
	ck_assert_str_eq(pcheck_family_name(pcheck_family(&(struct pm_config){false, true, 3, 1})),
	                 "CP-MG");
}
END_TEST

/* ---- the cores' bound (docs/pipeline.md): the GPU's thread and the GPU-CPU path keep cores ----
 */

/* DP-CG:3 with the GPU's thread spinning (gpu_host = 1): the 2 CPU threads have nC - 1 = 1
 * core; a core serves 1/T^CG(2)/2 = 14.2857... items/s: λ = 41.6667 + 14.2857. With
 * gpu_host = 0.5: 1.5 cores, λ = 41.6667 + 21.4286. DP-CG:2 (one CPU thread, a core free
 * beside the GPU's thread) keeps 1/T^CG(1). */
START_TEST(test_gpu_thread_takes_its_share_of_a_core_from_the_dp_cpu_path)
{
	struct pm_meas m;

	fixture(&m);
	m.gpu_host = 1;
	ck_assert_double_eq_tol(predict(&m, true, false, 3, 7).lambda, 1 / 0.024 + 0.5 / 0.035,
	                        TOL);
	ck_assert_double_eq_tol(predict(&m, true, false, 2, 7).lambda, 1 / 0.024 + 1 / 0.060, TOL);
	m.gpu_host = 0.5;
	ck_assert_double_eq_tol(predict(&m, true, false, 3, 7).lambda, 1 / 0.024 + 0.75 / 0.035,
	                        TOL);
}
END_TEST

/* DP-MG with gpu_host = 1: the whole CPU's item rate 31.25 on nC - 1 = 1 of 2 cores:
 * λ = 41.6667 + 15.625. */
START_TEST(test_gpu_thread_takes_its_share_of_a_core_from_dp_mg)
{
	struct pm_meas m;

	fixture(&m);
	m.gpu_host = 1;
	ck_assert_double_eq_tol(predict(&m, true, true, 3, 7).lambda, 1 / 0.024 + 15.625, TOL);
}
END_TEST

/* Up to nC threads the pool of threads has a core for each; nC + 1 share them. One core,
 * CP-CG:2 (stage 1 on the GPU, 0.005; stages 2-3 on a core, 0.004 + 0.004; a CPU item
 * 2·T^CG(2) = 0.070): the pool of two gives λ_GPU-CPU = gc = 85.24 and the CPU path 12.74.
 * With gpu_host = 1 the GPU-CPU path keeps gc·(0.008 + 0.005) = 1.11 cores of the one:
 * nothing is left for the CPU path, λ = gc. With gpu_host = 0 it keeps gc·0.008 = 0.68, and
 * a core serves 1/T^CG(2) items/s: the CPU path gets (1 - 0.68)/0.035 = 9.09 < 12.74. */
START_TEST(test_gpu_cpu_path_keeps_its_cores_from_the_cpu_path)
{
	struct pm_meas m;
	double gc, x = pool_of_two(0.005, 0.008, 0.070, &gc);

	fixture(&m);
	m.sh.nc = 1;
	m.st[1].t_cg = m.st[2].t_cg = 0.004;
	m.gpu_host = 1;
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 1).lambda, gc, 1e-9);
	m.gpu_host = 0;
	ck_assert(x - gc > (1 - gc * 0.008) / 0.035);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 1).lambda,
	                        gc + (1 - gc * 0.008) / 0.035, 1e-9);
}
END_TEST

/* ---- Table IV: coupled ---- */

/* One thread serves the GPU and its CPU stages in turn; two threads as worked out above. */
START_TEST(test_pool_of_threads_shared_by_the_two_paths)
{
	double gc, want_gc, want;

	ck_assert_double_eq_tol(pchain_throughput(1, false, 0.005, 0.030, 0.070, &gc), 1 / 0.035,
	                        TOL);
	ck_assert_double_eq_tol(gc, 1 / 0.035, TOL);
	want = pool_of_two(0.005, 0.030, 0.070, &want_gc);
	ck_assert_double_eq_tol(pchain_throughput(2, false, 0.005, 0.030, 0.070, &gc), want, 1e-9);
	ck_assert_double_eq_tol(gc, want_gc, 1e-9);
	/* A CPU path that never ends an item: two threads, yet only the GPU-CPU path's. */
	want = pool_of_two(0.004, 0.010, 1e12, &want_gc);
	ck_assert_double_eq_tol(pchain_throughput(2, false, 0.004, 0.010, INFINITY, &gc), want,
	                        1e-6);
	ck_assert_double_eq_tol(pchain_throughput(0, false, 0.004, 0.010, 1, &gc), 0, TOL);
	ck_assert_double_eq_tol(pchain_throughput(2, false, 0, 0.010, 1, &gc), 0, TOL);
}
END_TEST

/* The most threads a machine may have, a GPU 10^8 times as fast as a GPU-CPU item's CPU
 * stages: each state of the chain is up to 10^8/a times the one before, past a double's range
 * unless rescaled. The GPU-CPU path stays below the GPU's rate, the CPU path below 257 threads'
 * worth of CPU items. */
START_TEST(test_pool_of_the_most_threads_stays_finite)
{
	double gc, x = pchain_throughput(PM_MAX_CORES + 1, false, 1e-8, 1, 1e-3, &gc);

	ck_assert(isfinite(x) && isfinite(gc));
	ck_assert(gc > 0 && gc <= 1e8);
	ck_assert(x - gc > 0 && x - gc <= (PM_MAX_CORES + 1) * 1e3);
}
END_TEST

/* With many threads and a CPU item far longer than the GPU-CPU path's, an item that finds
 * the GPU busy holds its thread for that long: with 16 threads, GPU 0.1 ms, CPU stages 0.1 ms
 * and a CPU item of 100 ms, the GPU-CPU path stays far below the GPU's 10 000 items/s
 * (000's min(μ_GPU, μ_CPUA) with every thread on it) and the CPU path gets most threads:
 * at most 16 items / 0.1 s = 160 items/s from it. */
START_TEST(test_items_that_find_the_gpu_busy_hold_their_threads)
{
	double gc, x = pchain_throughput(16, false, 1e-4, 1e-4, 0.1, &gc);

	ck_assert(gc < 0.8 * 1e4);
	ck_assert(gc > 1 / 2e-4); /* more than one thread alone serves */
	ck_assert(x - gc > 0 && x - gc <= 160 + 1e-9);
}
END_TEST

/* CP-CG, 2 threads, stage 1 on the GPU: the pool of two threads with t_GPU = 0.005, the
 * GPU-CPU path's CPU stages 0.010 + 0.020 = 0.030 and a CPU item 2·T^CG(2) = 0.070 beside the
 * other thread: λ = 51.15..., λ_GPU-CPU = 45.16... (pool_of_two). The cores' bound leaves
 * the CPU path (1/T^CG(2))/2·(2 - 45.16·0.030) = 9.2 > 5.99 items/s: it does not bind.
 * eq. 7: E_GPU = p·(0.01, 0.05, 0.005); E_CPU = p·(0.3, 0, 0.03) + (1-p)·E^CG(2);
 * eq. 10: each component the larger. */
START_TEST(test_cp_cg_couples_gpu_and_cpu_stages_beside_a_cpu_path)
{
	struct pm_meas m;
	struct pm_pred p;
	double gc, x = pool_of_two(0.005, 0.030, 0.070, &gc), q = gc / x;

	fixture(&m);
	p = predict(&m, false, false, 2, 1);
	ck_assert_double_eq_tol(p.lambda, x, 1e-9);
	ck_assert_double_eq_tol(p.p_gpu, q, 1e-9);
	ck_assert_double_eq_tol(p.e_sum.c, q * 0.3 + (1 - q) * 0.5, 1e-9);
	ck_assert_double_eq_tol(p.e_sum.g, q * 0.05, 1e-9);
	ck_assert_double_eq_tol(p.e_sum.u, q * 0.03 + (1 - q) * 0.05, 1e-9);
}
END_TEST

/* CP-MG, stage 2 on the GPU, one core (MG's 2 threads): the GPU 0.015, the GPU-CPU path's
 * CPU stages 0.016 + 0.010 = 0.026 on the whole CPU, an item that finds the GPU busy all three
 * MG stages, 0.032, sharing the CPU with them (pool_of_two_shared). 000 gives the CPU path
 * nothing under MG (μ_CPUB^MG = 0): 1/0.026 = 38.46. Energy: p = λ_GPU-CPU/λ,
 * E_CPU = p·(0.32, 0, 0.03) + (1-p)·(0.4, 0, 0.04), E_GPU = p·(0.02, 0.15, 0.01). */
START_TEST(test_cp_mg_shares_the_whole_cpu_between_the_paths)
{
	struct pm_meas m;
	struct pm_pred p;
	double gc, x = pool_of_two_shared(0.015, 0.026, 0.032, &gc), q = gc / x;

	fixture(&m);
	m.sh.nc = 1;
	p = predict(&m, false, true, 2, 2);
	ck_assert_double_eq_tol(p.lambda, x, 1e-9);
	ck_assert_double_eq_tol(p.p_gpu, q, 1e-9);
	ck_assert_double_eq_tol(p.energy,
	                        fmax(q * 0.02, q * 0.32 + (1 - q) * 0.4) + q * 0.15 +
	                                fmax(q * 0.01, q * 0.03 + (1 - q) * 0.04),
	                        1e-9);
	ck_assert(x != 1 / 0.026);
}
END_TEST

/* The CPU's moves count where a run of CPU stages meets a GPU stage: CP-CG:1:101 (stage 2 on
 * a core between two GPU stages) pays stage 2's inputs in (0.004) and outputs out (0.006);
 * CP-CG:1:001 pays only stage 2's out (0.006, to stage 3 on the GPU), not stage 1's in
 * (the item is made on the CPU); CP-MG::101 pays MG's (0.001 + 0.002); DP-MG, and a
 * homogeneous CPU run, pay none. */
START_TEST(test_cpu_moves_count_where_cpu_stages_meet_gpu_stages)
{
	struct pm_meas m;
	double gc;

	fixture(&m);
	m.st[0].h2d_cg = 0.100;
	m.st[1].h2d_cg = 0.004;
	m.st[1].d2h_cg = 0.006;
	m.st[2].d2h_cg = 0.100;
	m.st[1].h2d_mg = 0.001;
	m.st[1].d2h_mg = 0.002;
	m.st[0].d2h_mg = m.st[2].h2d_mg = 0.100;
	/* One thread: 1 / (GPU 0.009 + core 0.010 + 0.004 + 0.006). */
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 5).lambda, 1 / 0.029, TOL);
	/* Stage 3 on the GPU (0.004), stages 1-2 on a core (0.040 + 0.006). */
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 4).lambda, 1 / 0.050, TOL);
	ck_assert_double_eq_tol(predict(&m, true, true, 3, 7).lambda, 1 / 0.024 + 31.25, TOL);
	ck_assert_double_eq_tol(predict(&m, false, false, 3, 0).lambda, 1 / 0.030, TOL);
	/* MG on one core (2 threads): GPU 0.009, stage 2 with MG's moves 0.006 + 0.003, a CPU
	 * item Σ T^MG = 0.032 without moves. */
	m.sh.nc = 1;
	ck_assert_double_eq_tol(predict(&m, false, true, 2, 5).lambda,
	                        pool_of_two_shared(0.009, 0.009, 0.032, &gc), 1e-9);
}
END_TEST

/* A GPU-CPU item's CPU stages take, with their moves, as long as each stage took in the CG
 * experiment with as many threads: CP-CG:2:100 where that experiment measured stage 2 at
 * 0.020 (twice alone) and stage 3 at 0.030 (1.5 times), stage 2's moves in 0.004 alone:
 * the GPU-CPU path's CPU stages take 2·(0.010 + 0.004) + 1.5·0.020 = 0.058 in the pool of
 * two (GPU 0.005, CPU item 2·T^CG(2) = 0.070; the cores' bound does not bind). One thread is
 * alone: 1/(0.005 + 0.010 + 0.004 + 0.020); MG has no such experiment: its stages take the
 * whole CPU's 0.006 + 0.010. */
START_TEST(test_gpu_cpu_stages_take_their_time_beside_the_other_threads)
{
	struct pm_meas m;
	double gc, x = pool_of_two(0.005, 0.058, 0.070, &gc);

	fixture(&m);
	m.st[1].h2d_cg = 0.004;
	m.t_cgn_stage[2][1] = 0.020;
	m.t_cgn_stage[2][2] = 0.030;
	/* Never read: one thread's stages are T_k^CG, however the n = 1 row reads. */
	m.t_cgn_stage[1][1] = m.t_cgn_stage[1][2] = 1.0;
	ck_assert(1 / 0.035 / 2 * (2 - gc * 0.058) >= x - gc);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 1).lambda, x, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 1).lambda, 1 / 0.039, TOL);
	/* MG on one core (2 threads): the whole CPU's 0.016 beside CPU items of 0.032. */
	m.sh.nc = 1;
	ck_assert_double_eq_tol(predict(&m, false, true, 2, 1).lambda,
	                        pool_of_two_shared(0.005, 0.016, 0.032, &gc), 1e-9);
}
END_TEST

/* The CG experiment beside the GPU: one CPU thread beside the GPU's (a coupled run of two)
 * took stage 1 in 0.036, stage 2 in 0.004 and stage 3 in 0.032 where the CG experiment with
 * two threads took 0.030, 0.010 and 0.020: the item 0.072 against 0.060, 1.2 times as long
 * (stage 2 faster, stage 3 1.6 times as long: the item's ratio, not each stage's). CP-CG:2
 * with stage 1 on the GPU: its CPU-path item 2·T^CG(2) = 0.070 becomes 0.070 · 1.2 = 0.084;
 * the GPU-CPU path's CPU stages stay 0.010 + 0.020. The homogeneous CPU is left as it is. */
START_TEST(test_coupled_cpu_stages_take_their_time_beside_the_gpu)
{
	struct pm_meas m;
	double gc, x;

	fixture(&m);
	m.t_cgn_stage[2][0] = 0.030;
	m.t_cgn_stage[2][1] = 0.010;
	m.t_cgn_stage[2][2] = 0.020;
	x = pool_of_two(0.005, 0.030, 0.070, &gc);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 1).lambda,
	                        gc + fmin(x - gc, 2 / 0.070 / 2 * (2 - gc * 0.030)), 1e-9);
	m.beside_n = 1;
	m.t_beside_stage[0] = 0.036;
	m.t_beside_stage[1] = 0.004;
	m.t_beside_stage[2] = 0.032;
	x = pool_of_two(0.005, 0.030, 0.084, &gc);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 1).lambda,
	                        gc + fmin(x - gc, 1 / 0.035 / 2 * (2 - gc * 0.030)), 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 0).lambda, 1 / 0.035, TOL);
	/* One thread has no CPU thread beside the GPU's: its stages as trained. */
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 1).lambda, 1 / 0.035, TOL);
}
END_TEST

/* A CPU-path item slowed beside the GPU never makes a configuration faster: over a grid of
 * GPU speeds, cores, threads, mappings and measured slowdowns, every coupled prediction with
 * the experiment is at most the prediction without it. (The pool's chain hands the GPU-CPU
 * path more items when CPU items are slower, and where the cores' bound binds the CPU path
 * the sum rose for some timings.) */
START_TEST(test_beside_slowdown_never_speeds_a_configuration_up)
{
	static const double gpu_scale[] = {0.2, 1, 5, 25}, slow[] = {1.05, 1.15, 1.3};
	struct pm_meas m;
	unsigned worse = 0;

	for (size_t g = 0; g < sizeof(gpu_scale) / sizeof(gpu_scale[0]); g++)
		for (unsigned nc = 1; nc <= 3; nc++)
			for (size_t r = 0; r < sizeof(slow) / sizeof(slow[0]); r++)
				for (unsigned n = 2; n <= 4; n++)
					for (uint32_t mask = 1; mask < 7; mask++) {
						double plain, with;

						fixture(&m);
						m.sh.nc = nc;
						m.gpu_host = 0.5;
						for (int k = 0; k < 3; k++) {
							m.st[k].t_g *= gpu_scale[g];
							m.t_cgn_stage[2][k] = m.st[k].t_cg;
						}
						plain = predict(&m, false, false, n, mask).lambda;
						m.beside_n = 1;
						for (int k = 0; k < 3; k++)
							m.t_beside_stage[k] =
							        m.st[k].t_cg * slow[r];
						with = predict(&m, false, false, n, mask).lambda;
						worse += with > plain * (1 + 1e-12);
					}
	ck_assert_uint_eq(worse, 0);
}
END_TEST

/* DP-CG:3: its two CPU threads run beside the GPU's, a coupled run of three; the experiment
 * with one CPU thread beside it (1.2 as above) gives the slowdown from one CPU thread on:
 * T^CG(2) = 0.035 becomes 0.042, λ = 1/0.024 + 1/0.042. With two CPU threads in the
 * experiment (against the CG experiment with three), one CPU thread beside the GPU's is half
 * of it: CP-CG:2's CPU-path item takes 0.070 · 1.1. */
START_TEST(test_beside_slowdown_grows_with_the_cpu_threads)
{
	struct pm_meas m;
	double gc, x;

	fixture(&m);
	m.t_cgn_stage[2][0] = 0.030;
	m.t_cgn_stage[2][1] = 0.010;
	m.t_cgn_stage[2][2] = 0.020;
	m.beside_n = 1;
	m.t_beside_stage[0] = 0.036;
	m.t_beside_stage[1] = 0.012;
	m.t_beside_stage[2] = 0.024;
	ck_assert_double_eq_tol(predict(&m, true, false, 3, 7).lambda, 1 / 0.024 + 1 / 0.042, 1e-9);
	fixture(&m);
	m.t_cgn_stage[3][0] = 0.030;
	m.t_cgn_stage[3][1] = 0.010;
	m.t_cgn_stage[3][2] = 0.020;
	m.beside_n = 2;
	m.t_beside_stage[0] = 0.036;
	m.t_beside_stage[1] = 0.012;
	m.t_beside_stage[2] = 0.024;
	x = pool_of_two(0.005, 0.030, 0.070 * 1.1, &gc);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 1).lambda, x, 1e-9);
}
END_TEST

/* Five cores: stage k beside n - 1 threads took c_k·(0.9 + 0.1 n), c = (0.030, 0.010, 0.020),
 * in the CG experiments with 1 .. 4 threads, and half as long again with 5 (a batch of cold
 * items: 0.063, 0.021, 0.042). The contention line, refitted on the points below its first
 * fit (2, 3 and 4 threads), has 0.042, 0.014, 0.028 at 5 threads, 0.084 an item: the
 * experiment beside the GPU (4 CPU threads) is taken against that. 1.2 times the line
 * (0.1008) slows DP-CG:5's CPU path 1.2 times, where against the cold batch (0.126) it read
 * 0.8 (faster beside the GPU than without); twice the line stops at PM_BESIDE_MAX; 0.9 times
 * it leaves the homogeneous rate (never faster). DP-CG:5's GPU path: 1/0.024. */
START_TEST(test_beside_slowdown_against_the_line_and_bounded)
{
	static const double c[3] = {0.030, 0.010, 0.020}, k_beside[3] = {1.2, 2.0, 0.9},
	                    want[3] = {1.2, PM_BESIDE_MAX, 1.0};
	struct pm_meas m;
	double mu_g = 1 / 0.024, plain;

	fixture(&m);
	m.sh.nc = 5;
	for (unsigned n = 1; n <= 6; n++) {
		double item = 0;

		for (unsigned k = 0; k < 3; k++) {
			double t = c[k] * (0.9 + 0.1 * (n < 5 ? n : 5)) * (n >= 5 ? 1.5 : 1);

			m.t_cgn_stage[n][k] = t;
			item += t;
		}
		m.t_cgn[n] = item / n;
	}
	plain = predict(&m, true, false, 5, 7).lambda - mu_g;
	for (unsigned i = 0; i < 3; i++) {
		m.beside_n = 4;
		for (unsigned k = 0; k < 3; k++)
			m.t_beside_stage[k] = k_beside[i] * c[k] * 1.4;
		ck_assert_double_eq_tol(plain / (predict(&m, true, false, 5, 7).lambda - mu_g),
		                        want[i], 1e-9);
	}
}
END_TEST

/* The GPU's feeder beside the CG experiment ran the whole item on the GPU in 0.020 s where the
 * GPU experiment's figures add up to 0.024: DP's GPU path takes 0.020 (DP-CG:1 λ = 50, DP-MG
 * 50 + 1/0.032); a coupled mapping keeps the GPU experiment's figures (CP-CG:1 with stage 1 on
 * the GPU: 1/(0.005 + 0.030)). */
START_TEST(test_dp_gpu_path_takes_the_feeders_item)
{
	struct pm_meas m;

	fixture(&m);
	m.t_gpu_fed = 0.020;
	ck_assert_double_eq_tol(predict(&m, true, false, 1, 7).lambda, 50, TOL);
	ck_assert_double_eq_tol(predict(&m, true, true, 3, 7).lambda, 50 + 1 / 0.032, TOL);
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 1).lambda, 1 / 0.035, TOL);
}
END_TEST

/* With no stage on the GPU, CP-CG with n threads is the homogeneous CG run: λ = 1/T^CG(n);
 * CP-MG is 1/Σ T^MG. */
START_TEST(test_no_stage_on_the_gpu_is_the_homogeneous_cpu)
{
	struct pm_meas m;

	fixture(&m);
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 0).lambda, 1 / 0.060, TOL);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 0).lambda, 1 / 0.035, TOL);
	ck_assert_double_eq_tol(predict(&m, false, false, 3, 0).lambda, 1 / 0.030, TOL);
	ck_assert_double_eq_tol(predict(&m, false, true, 3, 0).lambda, 1 / 0.032, TOL);
}
END_TEST

/* More threads on as many cores never serve fewer items: with T^CG(2) = 0.070 > T^CG(1) =
 * 0.060 the two rates are pooled, (1/0.060 + 1/0.070)/2 = 15.476... items/s for one thread
 * and for two; T^CG(3), nC + 1 threads on nC cores, stays as measured; one batch of
 * decreasing times is left alone. The pool of two then takes a CPU item of 2/15.476 s. */
START_TEST(test_cg_rates_that_fall_with_more_threads_are_pooled)
{
	struct pm_meas m;
	double r = (1 / 0.060 + 1 / 0.070) / 2, gc;

	fixture(&m);
	m.t_cgn[2] = 0.070;
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 0).lambda, r, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 0).lambda, r, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 3, 0).lambda, 1 / 0.030, 1e-9);
	ck_assert_double_eq_tol(predict(&m, true, false, 3, 7).lambda, 1 / 0.024 + r, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 1).lambda,
	                        pool_of_two(0.005, 0.030, 2 / r, &gc), 1e-9);
	fixture(&m);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 0).lambda, 1 / 0.035, 1e-9);
}
END_TEST

/*
 * The CG experiments' contention line (engines/pipeline/pipefit.h): one stage on 4 cores and
 * a GPU it may not use, measured at 0.010, 0.012, 0.020 and 0.016 s with 1 .. 4 threads. The
 * least squares over the four is 0.008 + 0.0026·n; 0.020 lies above it, the others at or
 * under, and the line through those three is 0.008 + 0.002·n: 0.014 s at 3 threads, so
 * T^CG(3) = 0.014/3 where the batch measured 0.020/3. T^CG(2) measured 0.005, faster than the
 * line's 0.012/2: it stays. Five threads share the four cores: T^CG(5) = T^CG(4) = 0.016/4,
 * whatever the batch of five measured.
 */
START_TEST(test_cg_times_follow_the_lower_contention_line)
{
	static const double stage[5] = {0, 0.010, 0.012, 0.020, 0.016};
	struct pm_meas m;
	struct pm_cgfit f;

	memset(&m, 0, sizeof(m));
	m.sh = (struct pm_shape){1, 4, true, 0};
	m.st[0].t_cg = stage[1];
	for (unsigned n = 1; n <= 4; n++) {
		m.t_cgn_stage[n][0] = stage[n];
		m.t_cgn[n] = stage[n] / n;
	}
	m.t_cgn[2] = 0.005;
	m.t_cgn[5] = 0.010;
	m.t_cgn_stage[5][0] = 0.050;
	pm_cgfit(&m, &f);
	ck_assert(f.ok);
	ck_assert_double_eq_tol(f.a[0], 0.008, 1e-12);
	ck_assert_double_eq_tol(f.b[0], 0.002, 1e-12);
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 0).lambda, 1 / 0.010, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 0).lambda, 1 / 0.005, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 3, 0).lambda, 3 / 0.014, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 4, 0).lambda, 4 / 0.016, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 5, 0).lambda, 4 / 0.016, 1e-9);
	/* A stage not measured at some n: T^CG(n) as measured, the rates of 2 and 3 threads
	 * that fall pooled to (200 + 150)/2; five threads as their batch measured. */
	m.t_cgn_stage[2][0] = 0;
	pm_cgfit(&m, &f);
	ck_assert(!f.ok);
	ck_assert_double_eq_tol(predict(&m, false, false, 3, 0).lambda, 175, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 5, 0).lambda, 1 / 0.010, 1e-9);
}
END_TEST

/*
 * One thread keeps the time it measured: a stage on 4 cores at 0.012, 0.012, 0.014 and 0.016 s
 * with 1 .. 4 threads. The least squares is 0.010 + 0.0014·n; only 2 and 3 threads lie at or
 * under it, too few to fit again, so the line stays: 0.0114 s at one thread, below the 0.012
 * that three items back to back in one thread measured, as a stream's thread runs them (no
 * batch started together, which is what the line corrects). CP-CG:1:0 is 1/0.012, not
 * 1/0.0114; T^CG(2), measured 0.006 under the line's 0.0064, stays; T^CG(4) is the line's
 * 0.0156/4.
 */
START_TEST(test_one_thread_keeps_its_measured_time)
{
	static const double stage[5] = {0, 0.012, 0.012, 0.014, 0.016};
	struct pm_meas m;
	struct pm_cgfit f;

	memset(&m, 0, sizeof(m));
	m.sh = (struct pm_shape){1, 4, true, 0};
	m.st[0].t_cg = stage[1];
	for (unsigned n = 1; n <= 4; n++) {
		m.t_cgn_stage[n][0] = stage[n];
		m.t_cgn[n] = stage[n] / n;
	}
	pm_cgfit(&m, &f);
	ck_assert(f.ok);
	ck_assert_double_eq_tol(f.a[0], 0.010, 1e-12);
	ck_assert_double_eq_tol(f.b[0], 0.0014, 1e-12);
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 0).lambda, 1 / 0.012, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 0).lambda, 1 / 0.006, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 4, 0).lambda, 4 / 0.0156, 1e-9);
}
END_TEST

/*
 * One thread's item is the median of three measurements of it: a stage on 4 cores at 0.006,
 * 0.010, 0.011 and 0.012 s with 1 .. 4 threads, T^CG(2) = 0.005 and T^CG(3) = 0.011/3 (0.010
 * and 0.011 a thread). The one-thread experiment's 0.006 lies under the other two: CP-CG:1:0 is
 * 1/0.010, not 1/0.006. The line (0.005 + 0.0019·n: only 1 and 4 threads lie at or under the
 * least squares, too few to fit again) gives T^CG(2) = 0.0088/2. With 2 cores there is no
 * three-thread batch on cores of its own: one thread keeps its 0.006.
 */
START_TEST(test_one_thread_is_the_median_of_three_experiments)
{
	static const double stage[5] = {0, 0.006, 0.010, 0.011, 0.012};
	struct pm_meas m;

	memset(&m, 0, sizeof(m));
	m.sh = (struct pm_shape){1, 4, true, 0};
	m.st[0].t_cg = stage[1];
	for (unsigned n = 1; n <= 4; n++) {
		m.t_cgn_stage[n][0] = stage[n];
		m.t_cgn[n] = stage[n] / n;
	}
	m.t_cgn[2] = 0.005;
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 0).lambda, 1 / 0.010, 1e-9);
	ck_assert_double_eq_tol(predict(&m, false, false, 2, 0).lambda, 2 / 0.0088, 1e-9);
	m.sh.nc = 2;
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 0).lambda, 1 / 0.006, 1e-9);
}
END_TEST

/* The GPU stages share one GPU (docs/pipeline.md): with stages 1 and 3 on the GPU and
 * t_G = 0.025 and 0.030 they take 0.055 s of GPU per item, so one thread's item takes
 * 0.055 + T_2^CG = 0.065 s, and CP-MG's GPU-CPU path alone could not pass 1/0.055 = 18.18
 * (000's min over the queues would give min(1/0.025, 1/0.030, ...) = 33.3). */
START_TEST(test_gpu_stages_of_one_item_add_up_on_the_one_gpu)
{
	struct pm_meas m;

	fixture(&m);
	m.st[0].t_g = 0.025;
	m.st[2].t_g = 0.030;
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 5).lambda, 1 / 0.065, TOL);
	ck_assert(predict(&m, false, true, 3, 5).p_gpu * predict(&m, false, true, 3, 5).lambda <=
	          1 / 0.055 + 1e-9);
}
END_TEST

/* CP-CG with one thread: that thread runs the item's GPU stages, then its CPU stages, so
 * the two queues add up: stage 1 on the GPU, λ = 1/(0.005 + 0.010 + 0.020) = 28.57...,
 * not min(1/0.005, 1/0.030) = 33.3; p_GPU-CPU = 1 and E = ε_GPU + ε_CPUA = (0.01, 0.05,
 * 0.005) + (0.3, 0, 0.03), max per component (eq. 10) = 0.3 + 0.05 + 0.03 = 0.38. */
START_TEST(test_one_thread_serves_gpu_and_cpu_stages_in_turn)
{
	struct pm_meas m;
	struct pm_pred p;

	fixture(&m);
	p = predict(&m, false, false, 1, 1);
	ck_assert_double_eq_tol(p.lambda, 1 / 0.035, TOL);
	ck_assert_double_eq_tol(p.p_gpu, 1.0, TOL);
	ck_assert_double_eq_tol(p.energy, 0.38, TOL);
}
END_TEST

/* 000 §V-C: a run of GPU stages pays its first stage's host-to-device and its last stage's
 * device-to-host time. Stages 1-2 on the GPU: 0.005 + 0.015 + h2d_1 (0.002) + d2h_2 (0.003);
 * the other transfers (h2d_2, d2h_1) are not paid. DP: the whole chain, h2d_1 + d2h_3. */
START_TEST(test_transfers_count_at_the_ends_of_a_gpu_run)
{
	struct pm_meas m;

	fixture(&m);
	m.st[0].h2d_g = 0.002;
	m.st[0].d2h_g = 0.100;
	m.st[1].h2d_g = 0.100;
	m.st[1].d2h_g = 0.003;
	m.st[2].h2d_g = 0.100;
	m.st[2].d2h_g = 0.001;
	/* CP-CG:1:110: the GPU's 0.025 and stage 3 on a core, 0.020. */
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 3).lambda, 1 / 0.045, TOL);
	/* DP-CG:1: 0.024 + 0.002 + 0.001. */
	ck_assert_double_eq_tol(predict(&m, true, false, 1, 7).lambda, 1 / 0.027, TOL);
}
END_TEST

/* A run of GPU stages that ends before a CPU stage pays the smaller of the GPU experiment's
 * two timings of the buffer between them: CP-CG:1:100 with stage 1's outputs back in 0.030
 * and stage 2's inputs in again in 0.004 pays 0.005 + 0.002 + 0.004 on the GPU and 0.030 on
 * the core. Where stage 2 may not run on the GPU (no h2d of its own), the 0.030 back. */
START_TEST(test_gpu_run_pays_the_faster_timing_of_its_outputs_back)
{
	struct pm_meas m;

	fixture(&m);
	m.st[0].h2d_g = 0.002;
	m.st[0].d2h_g = 0.030;
	m.st[1].h2d_g = 0.004;
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 1).lambda, 1 / 0.041, TOL);
	m.sh.gpu_ok = 5;
	m.st[1].h2d_g = 0;
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 1).lambda, 1 / 0.067, TOL);
}
END_TEST

/* The fixture's three stages with their buffers: stage 0 reads the source (buffer 0, 100 B)
 * and writes buffer 1 (300 B), stage 1 reads 1 and writes 2 (100 B), stage 2 reads 1 and 2 and
 * writes the sink, 3 (100 B). The GPU experiment moved buffer 0 in before stage 0 (1 ms),
 * buffer 1 back after it (6 ms) and in again before stage 1 (3 ms), buffer 2 back (1 ms) and
 * in (2 ms), the sink back (0.5 ms); buffer 1 was still on the GPU for stage 2. */
static void fixture_flow(struct pm_meas *m)
{
	struct pm_flow *f = &m->flow;
	static const double h2d[3] = {0.001, 0.003, 0.002}, d2h[3] = {0.006, 0.001, 0.0005};

	fixture(m);
	f->nb = 4;
	f->bytes[0] = 100;
	f->bytes[1] = 300;
	f->bytes[2] = 100;
	f->bytes[3] = 100;
	f->rd[0] = 1;
	f->wr[0] = 2;
	f->rd[1] = 2;
	f->wr[1] = 4;
	f->rd[2] = 6;
	f->wr[2] = 8;
	f->sink = 8;
	for (int k = 0; k < 3; k++) {
		m->st[k].h2d_g = h2d[k];
		m->st[k].d2h_g = d2h[k];
	}
}

/* Stage 2 alone on the GPU reads buffer 1, which stage 0 wrote on a core two stages before:
 * it moves in (3 ms, as stage 1's inputs did in the experiment) beside buffer 2 (2 ms), and
 * the sink comes back (0.5 ms): 4 + 5.5 ms on the GPU, then stages 0 and 1 on the core, 40 ms,
 * in turn with one thread. Per stage, stage 2's moves were 2 + 0.5 ms only. */
START_TEST(test_every_buffer_a_gpu_stage_reads_moves_in)
{
	struct pm_meas m;
	double in[PIPE_MAX_BUFFERS], back[PIPE_MAX_BUFFERS], t;

	fixture_flow(&m);
	pmove_buffer_times(&m, in, back);
	ck_assert_double_eq_tol(in[1], 0.003, TOL);
	ck_assert_double_eq_tol(back[1], 0.006, TOL);
	ck_assert_double_eq_tol(in[3], 0, TOL);
	ck_assert(pmove_gpu_time(&m, 4, &t));
	ck_assert_double_eq_tol(t, 0.0055, TOL);
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 4).lambda, 1 / 0.0495, TOL);
	/* Stage 0 on the GPU: buffer 0 in, buffer 1 back at the faster of its two timings (3 ms),
	 * as per stage; all on the GPU: buffer 0 in and the sink back. */
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 1).lambda, 1 / 0.039, TOL);
	ck_assert_double_eq_tol(predict(&m, true, false, 1, 7).lambda, 1 / 0.0255, TOL);
	m.flow.nb = 0;
	ck_assert(!pmove_gpu_time(&m, 4, &t));
	ck_assert_double_eq_tol(predict(&m, false, false, 1, 4).lambda, 1 / 0.0465, TOL);
}
END_TEST

/* Two buffers moved by one timing share it by size. */
START_TEST(test_one_timing_of_two_buffers_is_shared_by_size)
{
	struct pm_meas m;
	double in[PIPE_MAX_BUFFERS], back[PIPE_MAX_BUFFERS];

	fixture_flow(&m);
	m.flow.wr[0] = 6; /* stage 0 writes buffers 1 and 2 (400 B) in 6 ms */
	m.flow.wr[1] = 0;
	m.flow.rd[1] = 6; /* stage 1 moves both in, 3 ms */
	pmove_buffer_times(&m, in, back);
	ck_assert_double_eq_tol(back[1], 0.0045, TOL);
	ck_assert_double_eq_tol(back[2], 0.0015, TOL);
	ck_assert_double_eq_tol(in[1], 0.00225, TOL);
	ck_assert_double_eq_tol(in[2], 0.00075, TOL);
}
END_TEST

/* MG's stages hold a lock each, so items in different stages overlap: the fixture's stages
 * all ran faster on the whole CPU than on one core (they hold every core), so the CPU takes an
 * item per 16 + 6 + 10 ms, as 000 has it. Stage 1 at 12 ms on the whole CPU against 10 on one
 * core ran on one core, beside the others: an item per 16 + 10 ms; stage 0 too, at 40 ms: an
 * item per 40 ms, its lock. */
START_TEST(test_mg_stages_overlap_under_their_locks)
{
	struct pm_meas m;

	fixture(&m);
	ck_assert_double_eq_tol(predict(&m, false, true, 3, 0).lambda, 1 / 0.032, TOL);
	m.st[1].t_mg = 0.012;
	ck_assert_double_eq_tol(predict(&m, false, true, 3, 0).lambda, 1 / 0.026, TOL);
	m.st[0].t_mg = 0.040;
	ck_assert_double_eq_tol(predict(&m, false, true, 3, 0).lambda, 1 / 0.040, TOL);
	/* DP-MG's CPU path beside the GPU's (Σ T_k^G = 24 ms), the GPU's thread keeping no core. */
	ck_assert_double_eq_tol(predict(&m, true, true, 3, 7).lambda, 1 / 0.024 + 1 / 0.040, TOL);
}
END_TEST

/* ---- equation 8 and the serial stages ---- */

/* E_e = min(TDP/λ, E_eC + E_eG + E_eU): DP-CG:3 at λ = 70.238 and TDP = 10 W: the cap is
 * 10/70.238 = 0.14237 J < 21.6/59 = 0.3661 (test_dp_cg_adds_the_gpu_path_and_the_cpu_path). */
START_TEST(test_tdp_caps_the_energy_per_item)
{
	struct pm_meas m;

	fixture(&m);
	m.tdp = 10;
	ck_assert_double_eq_tol(predict(&m, true, false, 3, 7).energy, 10 / (1 / 0.024 + 1 / 0.035),
	                        TOL);
	m.tdp = 100; /* 1.42 J: no cap */
	ck_assert_double_eq_tol(predict(&m, true, false, 3, 7).energy, 21.6 / 59, TOL);
	ck_assert_double_eq_tol(pm_effective_energy(0, 50, en(1, 2, 3)), 6, TOL);
	ck_assert_double_eq_tol(pm_effective_energy(60, 50, en(1, 2, 3)), 1.2, TOL);
}
END_TEST

/* The energy balance condition takes each component's larger value. */
START_TEST(test_energy_balance_takes_each_components_maximum)
{
	struct pm_energy b = pm_energy_balance(en(1, 5, 2), en(3, 4, 2.5));

	ck_assert_double_eq(b.c, 3);
	ck_assert_double_eq(b.g, 5);
	ck_assert_double_eq(b.u, 2.5);
}
END_TEST

/* The serial Input stage at 0.05 s per item lets 20 items/s through at most. */
START_TEST(test_serial_stages_bound_the_throughput)
{
	struct pm_meas m;
	struct pm_pred p;

	fixture(&m);
	m.t_in = 0.05;
	p = predict(&m, true, false, 3, 7);
	ck_assert_double_eq_tol(p.lambda_q, 1 / 0.024 + 1 / 0.035, 1e-9);
	ck_assert_double_eq_tol(p.lambda, 20, 1e-9);
	m.t_in = 0.001;
	m.t_out = 0.04;
	ck_assert_double_eq_tol(predict(&m, true, false, 3, 7).lambda, 25, 1e-9);
}
END_TEST

START_TEST(test_unmeasured_energy_is_negative)
{
	struct pm_meas m;

	fixture(&m);
	m.energy = false;
	ck_assert(predict(&m, true, false, 3, 7).energy < 0);
}
END_TEST

/* ---- the configuration space, the choice, the baseline ---- */

/* 000 §II-B: 2^s·(nC+2) = 8·4 = 32 configurations; the all-GPU mapping is DP. */
START_TEST(test_enumeration_counts_two_to_the_s_times_nc_plus_two)
{
	struct pm_shape sh = {3, 2, true, 7};
	struct pm_config *c;
	size_t n = pm_enumerate(&sh, &c), dp = 0, mg = 0;

	ck_assert_uint_eq(n, 32);
	for (size_t i = 0; i < n; i++) {
		dp += c[i].dp;
		mg += c[i].mg;
		ck_assert(c[i].dp == (c[i].mask == 7));
		ck_assert(c[i].mg ? c[i].threads == 3 : c[i].threads >= 1 && c[i].threads <= 3);
	}
	ck_assert_uint_eq(dp, 4);
	ck_assert_uint_eq(mg, 8);
	free(c);
}
END_TEST

/* Stage 2 with gpu="no": 2^2 mappings, none of them DP; without a GPU, CG 1..nC and MG. */
START_TEST(test_enumeration_skips_cpu_only_stages_and_machines)
{
	struct pm_shape sh = {3, 2, true, 5}, cpu = {3, 4, false, 0};
	struct pm_config *c;
	size_t n = pm_enumerate(&sh, &c);

	ck_assert_uint_eq(n, 16);
	for (size_t i = 0; i < n; i++) {
		ck_assert(!c[i].dp);
		ck_assert_uint_eq(c[i].mask & 2, 0);
	}
	free(c);
	n = pm_enumerate(&cpu, &c);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(c[3].threads, 4);
	ck_assert(c[4].mg && c[4].mask == 0);
	free(c);
}
END_TEST

/* Throughput, energy and throughput/energy pick different configurations. */
START_TEST(test_choice_follows_the_criterion)
{
	struct pm_config c[3] = {{true, false, 2, 7}, {true, false, 2, 7}, {true, false, 2, 7}};
	struct pm_pred p[3] = {{.lambda = 10, .energy = 1.0},
	                       {.lambda = 30, .energy = 6.0},
	                       {.lambda = 20, .energy = 1.5}};

	ck_assert_uint_eq(pm_choose(c, p, 3, PM_THROUGHPUT, 0.05, 2), 1);
	ck_assert_uint_eq(pm_choose(c, p, 3, PM_ENERGY, 0.05, 2), 0);
	ck_assert_uint_eq(pm_choose(c, p, 3, PM_TPE, 0.05, 2), 2); /* 10, 5, 13.3 */
}
END_TEST

/* Within the tolerance the fewest threads win, MG counting nC+1: 100 items/s with 9 threads
 * against 97 with 4, 96 with 3 (MG) and 94 with 2: 2 threads at 6 %, 3 at 5 %, the MG one
 * (nC+1 = 3 threads) losing to the CG one of 3 threads that predicts more; energy: 1.00 J
 * with 9 threads against 1.04 J with 4. */
START_TEST(test_choice_prefers_fewer_threads_within_the_tolerance)
{
	struct pm_config c[4] = {
	        {true, false, 9, 7}, {true, false, 4, 7}, {true, true, 3, 7}, {true, false, 2, 7}};
	struct pm_pred p[4] = {{.lambda = 100, .energy = 1.00},
	                       {.lambda = 97, .energy = 1.04},
	                       {.lambda = 95.5, .energy = 2},
	                       {.lambda = 94, .energy = 2}};

	ck_assert_uint_eq(pm_choose(c, p, 4, PM_THROUGHPUT, 0, 2), 0);
	ck_assert_uint_eq(pm_choose(c, p, 4, PM_THROUGHPUT, 0.05, 2), 2);
	ck_assert_uint_eq(pm_choose(c, p, 4, PM_THROUGHPUT, 0.06, 2), 3);
	c[2].threads = 3;
	c[2].mg = false;
	p[2].lambda = 95;
	c[1].threads = 3;
	ck_assert_uint_eq(pm_choose(c, p, 4, PM_THROUGHPUT, 0.05, 2), 1);
	ck_assert_uint_eq(pm_choose(c, p, 4, PM_ENERGY, 0.05, 2), 1);
	ck_assert_uint_eq(pm_choose(c, p, 4, PM_ENERGY, 0.03, 2), 0);
}
END_TEST

/* On the fixture the model prefers CP-CG:3:101 for throughput: the GPU serves stages 1 and
 * 3 (0.009 s), a core stage 2 (0.010 s), 3 threads share the two paths. It lies below 000's
 * form, min(111.1, 100) + (1/0.030 - 1/0.060) = 116.67, which gives every thread to both
 * paths at once, and above DP-MG's 72.92 (test_dp_mg_adds_the_gpu_and_the_whole_cpu), the
 * best of the rest by more than 5 %. */
START_TEST(test_best_throughput_of_the_fixture_is_cp_cg_101)
{
	struct pm_meas m;
	struct pm_config *c;
	size_t n, best;
	struct pm_pred *p;

	fixture(&m);
	n = pm_enumerate(&m.sh, &c);
	p = calloc(n, sizeof(*p));
	for (size_t i = 0; i < n; i++)
		pm_predict(&m, &c[i], &p[i]);
	best = pm_choose(c, p, n, PM_THROUGHPUT, 0, m.sh.nc);
	ck_assert(!c[best].dp && !c[best].mg);
	ck_assert_uint_eq(c[best].threads, 3);
	ck_assert_uint_eq(c[best].mask, 5);
	ck_assert(p[best].lambda < 100 + 1 / 0.030 - 1 / 0.060);
	ck_assert(p[best].lambda > (1 / 0.024 + 31.25) * (1 + PM_CHOICE_TOLERANCE));
	ck_assert_uint_eq(pm_choose(c, p, n, PM_THROUGHPUT, PM_CHOICE_TOLERANCE, m.sh.nc), best);
	free(p);
	free(c);
}
END_TEST

/* 000 §VI-B: each stage where it ran faster, GPU (0.005, 0.015, 0.004) against MG (0.016,
 * 0.006, 0.010): stages 1 and 3, MG; all three faster on the GPU makes it DP-MG. */
START_TEST(test_baseline_maps_each_stage_to_its_faster_device)
{
	struct pm_meas m;
	struct pm_config b;

	fixture(&m);
	b = pm_baseline(&m);
	ck_assert(!b.dp && b.mg);
	ck_assert_uint_eq(b.mask, 5);
	ck_assert_uint_eq(b.threads, 3);
	m.st[1].t_g = 0.001;
	b = pm_baseline(&m);
	ck_assert(b.dp && b.mask == 7);
	m.sh.gpu = false;
	ck_assert_uint_eq(pm_baseline(&m).mask, 0);
}
END_TEST

/* ---- equations 1 and 2 ---- */

/* Training took 1.0 s for N_s = 10 items; at λ_c = 20 items/s they would have taken 0.5 s:
 * Δt = 0.5 s. With ov = 5 %: t > 0.95/0.05 · 0.5 = 9.5 s. */
START_TEST(test_overhead_bound_of_equations_1_and_2)
{
	struct pm_meas m;

	memset(&m, 0, sizeof(m));
	m.t_collect = 1.0;
	m.n_collect = 10;
	ck_assert_double_eq_tol(pm_delta_t(&m, 20), 0.5, TOL);
	ck_assert(!pm_may_retrain(9.4, 0.5, 0.05));
	ck_assert(pm_may_retrain(9.6, 0.5, 0.05));
	/* A training faster than the current configuration costs nothing: at once. */
	ck_assert(pm_delta_t(&m, 5) < 0);
	ck_assert(pm_may_retrain(0.001, pm_delta_t(&m, 5), 0.05));
	ck_assert(!pm_may_retrain(1e9, 0.5, 0)); /* no overhead allowed: never */
}
END_TEST

/* ---- configuration names ---- */

START_TEST(test_config_names_parse_back)
{
	struct pm_shape sh = {3, 2, true, 7};
	struct pm_config *c;
	size_t n = pm_enumerate(&sh, &c);
	struct cs_err e;

	for (size_t i = 0; i < n; i++) {
		char name[PM_NAME_MAX];
		struct pm_config back;
		bool base;

		pm_config_name(&sh, &c[i], name, sizeof(name));
		ck_assert_msg(pm_config_parse(&sh, name, &back, &base, &e) == 0, "%s: %s", name,
		              e.msg);
		ck_assert(!base);
		ck_assert(back.dp == c[i].dp && back.mg == c[i].mg);
		ck_assert_uint_eq(back.threads, c[i].threads);
		ck_assert_uint_eq(back.mask, c[i].mask);
	}
	free(c);
}
END_TEST

START_TEST(test_config_defaults_and_examples)
{
	struct pm_shape sh = {3, 2, true, 7};
	struct pm_config c;
	struct cs_err e;
	bool base;
	char name[PM_NAME_MAX];

	ck_assert_int_eq(pm_config_parse(&sh, "DP-CG", &c, &base, &e), 0);
	ck_assert(c.dp && !c.mg && c.threads == 3 && c.mask == 7);
	ck_assert_int_eq(pm_config_parse(&sh, "cp-cg:2", &c, &base, &e), 0);
	ck_assert(!c.dp && c.threads == 2 && c.mask == 0);
	ck_assert_int_eq(pm_config_parse(&sh, "CP-MG::010", &c, &base, &e), 0);
	ck_assert_str_eq(pm_config_name(&sh, &c, name, sizeof(name)), "CP-MG::010");
	ck_assert_int_eq(pm_config_parse(&sh, "baseline", &c, &base, &e), 0);
	ck_assert(base);
}
END_TEST

static void bad_config(const struct pm_shape *sh, const char *s, const char *want)
{
	struct pm_config c;
	struct cs_err e;
	bool base;

	ck_assert_int_eq(pm_config_parse(sh, s, &c, &base, &e), -1);
	ck_assert_msg(strstr(e.msg, want), "'%s': '%s' lacks '%s'", s, e.msg, want);
}

START_TEST(test_bad_configs_say_what_is_wrong)
{
	struct pm_shape sh = {3, 2, true, 5}, cpu = {3, 2, false, 0};

	bad_config(&sh, "XP-CG", "expected DP-CG, DP-MG, CP-CG or CP-MG");
	bad_config(&sh, "CP-CG:4", "4 threads; this machine takes 1 to 3");
	bad_config(&sh, "CP-CG:0", "0 threads");
	bad_config(&sh, "CP-CG:x", "'x' is not a thread count");
	bad_config(&sh, "CP-CG:2:01", "STAGES needs one 0 or 1 per stage");
	bad_config(&sh, "CP-CG:2:012", "STAGES needs one 0 or 1 per stage");
	bad_config(&sh, "CP-CG:2:010", "stage 2 has gpu=\"no\"");
	bad_config(&sh, "DP-CG", "a stage has gpu=\"no\"");
	bad_config(&sh, "CP-MG:2:100", "MG always runs nC+1 = 3 threads");
	bad_config(&sh, "CP-CG:1:1:1", "too many ':' fields");
	bad_config(&cpu, "DP-MG", "there is none");
	bad_config(&cpu, "CP-CG:2:100", "there is none");
	bad_config(&(struct pm_shape){3, 2, true, 7}, "CP-CG:2:111", "write DP-CG");
	bad_config(&(struct pm_shape){3, 2, true, 7}, "DP-CG:2:111", "leave STAGES out");
}
END_TEST

/* ---- the monitor ---- */

/* Ten items a second, evenly: no change; the second window is the reference. */
START_TEST(test_monitor_sees_no_change_in_a_steady_stream)
{
	struct pmon m;

	pmon_init(&m, 8, 0.25, 0);
	for (int i = 1; i <= 100; i++)
		ck_assert(!pmon_item(&m, i * 0.1));
	ck_assert_double_eq_tol(m.ref, 10, 1e-9);
}
END_TEST

/* The rate halves after 40 items: two slow windows in a row make a change; one slow window
 * alone (a hiccup) does not. */
START_TEST(test_monitor_needs_two_windows_off_the_same_way)
{
	struct pmon m;
	double t = 0;
	int i;

	pmon_init(&m, 8, 0.25, 0);
	for (i = 1; i <= 40; i++)
		ck_assert(!pmon_item(&m, t += 0.1));
	for (i = 0; i < 8; i++)
		ck_assert(!pmon_item(&m, t += 0.2)); /* one slow window */
	for (i = 0; i < 8; i++)
		ck_assert(!pmon_item(&m, t += 0.1)); /* back to normal */
	for (i = 0; i < 8; i++)
		ck_assert(!pmon_item(&m, t += 0.2));
	for (i = 0; i < 7; i++)
		ck_assert(!pmon_item(&m, t += 0.2));
	ck_assert(pmon_item(&m, t += 0.2)); /* the second slow window ends */
	ck_assert_int_eq(m.trend, -1);
}
END_TEST

/* A rise counts too. */
START_TEST(test_monitor_sees_a_rise)
{
	struct pmon m;
	double t = 0;
	bool changed = false;

	pmon_init(&m, 4, 0.25, 0);
	for (int i = 0; i < 8; i++)
		pmon_item(&m, t += 0.1);
	for (int i = 0; i < 8; i++)
		changed = pmon_item(&m, t += 0.05);
	ck_assert(changed);
	ck_assert_int_eq(m.trend, 1);
}
END_TEST

/* Little's law per path: a GPU thread doing an item every 0.01 s and a core whose one item
 * takes 1 s, fed for 0.5 s (the core's item outlasts the time it was fed): the 50 GPU items
 * count whole, the core's for half: 50.5 items in 0.5 s, 101 a second, the two paths' rates
 * added. */
START_TEST(test_steady_throughput_counts_each_items_share_of_the_fed_time)
{
	double take[51], done[51];

	for (int i = 0; i < 50; i++) {
		take[i] = 0.01 * i;
		done[i] = 0.01 * (i + 1);
	}
	take[50] = 0;
	done[50] = 1.0;
	ck_assert_double_eq_tol(pmon_throughput(take, done, 51, 0.5), 50.5 / 0.5, TOL);
	/* Items taken after the feeding stopped, and draining, do not count. */
	ck_assert_double_eq_tol(pmon_throughput(take, done, 51, 0.25), (25 + 0.25) / 0.25, TOL);
	ck_assert_double_eq(pmon_throughput(take, done, 0, 0.5), 0);
	ck_assert_double_eq(pmon_throughput(take, done, 51, 0), 0);
}
END_TEST

/* n threads on cores of speeds 1, 1 and 1/2 (R = 1, 1, 2 s): 2.5 items a second, T = 0.4 s,
 * where the batch's wall time over n would say 2/3 s. */
START_TEST(test_cg_time_per_item_adds_the_threads_rates)
{
	struct prun_item r[3];

	memset(r, 0, sizeof(r));
	r[0].wall = r[1].wall = 1.0;
	r[2].wall = 2.0;
	ck_assert_double_eq_tol(ptrain_time_per_item(r, 3), 0.4, TOL);
	ck_assert_double_eq_tol(ptrain_time_per_item(r, 1), 1.0, TOL);
	r[0].wall = r[1].wall = r[2].wall = 0;
	ck_assert_double_eq(ptrain_time_per_item(r, 3), 0);
}
END_TEST

/* N_s: 16 cores and a GPU, (18·17)/2 + 2 + 3·2 = 161, and 15 items beside the GPU: 176; one
 * core and a GPU has no CPU thread to put beside it: 3·2/2 + 2 + 6 = 11; without a GPU,
 * 16·17/2 + 1 + 2·2 = 141. */
START_TEST(test_training_items_count_the_experiment_beside_the_gpu)
{
	ck_assert_uint_eq(ptrain_items(&(struct pm_shape){5, 16, true, 31}), 176);
	ck_assert_uint_eq(ptrain_beside(&(struct pm_shape){5, 16, true, 31}), 15);
	ck_assert_uint_eq(ptrain_items(&(struct pm_shape){3, 1, true, 7}), 11);
	ck_assert_uint_eq(ptrain_items(&(struct pm_shape){3, 16, false, 0}), 141);
	ck_assert_uint_eq(ptrain_beside(&(struct pm_shape){3, 16, false, 0}), 0);
}
END_TEST

static Suite *suite_pipeline(void)
{
	Suite *s = suite_create("pipeline");
	TCase *t = tcase_create("model");

	tcase_add_test(t, test_dp_cg_adds_the_gpu_path_and_the_cpu_path);
	tcase_add_test(t, test_dp_cg_one_thread_is_the_gpu_alone);
	tcase_add_test(t, test_dp_mg_adds_the_gpu_and_the_whole_cpu);
	tcase_add_test(t, test_cp_cg_couples_gpu_and_cpu_stages_beside_a_cpu_path);
	tcase_add_test(t, test_cp_mg_shares_the_whole_cpu_between_the_paths);
	tcase_add_test(t, test_no_stage_on_the_gpu_is_the_homogeneous_cpu);
	tcase_add_test(t, test_cg_rates_that_fall_with_more_threads_are_pooled);
	tcase_add_test(t, test_cg_times_follow_the_lower_contention_line);
	tcase_add_test(t, test_one_thread_keeps_its_measured_time);
	tcase_add_test(t, test_one_thread_is_the_median_of_three_experiments);
	tcase_add_test(t, test_gpu_stages_of_one_item_add_up_on_the_one_gpu);
	tcase_add_test(t, test_one_thread_serves_gpu_and_cpu_stages_in_turn);
	tcase_add_test(t, test_pool_of_threads_shared_by_the_two_paths);
	tcase_add_test(t, test_items_that_find_the_gpu_busy_hold_their_threads);
	tcase_add_test(t, test_pool_of_the_most_threads_stays_finite);
	tcase_add_test(t, test_transfers_count_at_the_ends_of_a_gpu_run);
	tcase_add_test(t, test_gpu_run_pays_the_faster_timing_of_its_outputs_back);
	tcase_add_test(t, test_every_buffer_a_gpu_stage_reads_moves_in);
	tcase_add_test(t, test_mg_stages_overlap_under_their_locks);
	tcase_add_test(t, test_one_timing_of_two_buffers_is_shared_by_size);
	tcase_add_test(t, test_cpu_moves_count_where_cpu_stages_meet_gpu_stages);
	tcase_add_test(t, test_gpu_cpu_stages_take_their_time_beside_the_other_threads);
	tcase_add_test(t, test_coupled_cpu_stages_take_their_time_beside_the_gpu);
	tcase_add_test(t, test_beside_slowdown_grows_with_the_cpu_threads);
	tcase_add_test(t, test_beside_slowdown_never_speeds_a_configuration_up);
	tcase_add_test(t, test_beside_slowdown_against_the_line_and_bounded);
	tcase_add_test(t, test_dp_gpu_path_takes_the_feeders_item);
	tcase_add_test(t, test_tdp_caps_the_energy_per_item);
	tcase_add_test(t, test_energy_balance_takes_each_components_maximum);
	tcase_add_test(t, test_serial_stages_bound_the_throughput);
	tcase_add_test(t, test_unmeasured_energy_is_negative);
	tcase_add_test(t, test_check_noise_is_the_relative_difference);
	tcase_add_test(t, test_check_disagrees_only_beyond_the_noise);
	tcase_add_test(t, test_check_switches_below_the_baseline_and_not_within_the_noise);
	tcase_add_test(t, test_check_measures_the_configurations_ranked_next);
	tcase_add_test(t, test_knowledge_averages_corrections_and_keeps_them);
	tcase_add_test(t, test_config_families);
	tcase_add_test(t, test_gpu_thread_takes_its_share_of_a_core_from_the_dp_cpu_path);
	tcase_add_test(t, test_gpu_thread_takes_its_share_of_a_core_from_dp_mg);
	tcase_add_test(t, test_gpu_cpu_path_keeps_its_cores_from_the_cpu_path);
	suite_add_tcase(s, t);
	t = tcase_create("configurations");
	tcase_add_test(t, test_enumeration_counts_two_to_the_s_times_nc_plus_two);
	tcase_add_test(t, test_enumeration_skips_cpu_only_stages_and_machines);
	tcase_add_test(t, test_choice_follows_the_criterion);
	tcase_add_test(t, test_choice_prefers_fewer_threads_within_the_tolerance);
	tcase_add_test(t, test_best_throughput_of_the_fixture_is_cp_cg_101);
	tcase_add_test(t, test_baseline_maps_each_stage_to_its_faster_device);
	tcase_add_test(t, test_overhead_bound_of_equations_1_and_2);
	tcase_add_test(t, test_config_names_parse_back);
	tcase_add_test(t, test_config_defaults_and_examples);
	tcase_add_test(t, test_bad_configs_say_what_is_wrong);
	suite_add_tcase(s, t);
	t = tcase_create("monitor");
	tcase_add_test(t, test_monitor_sees_no_change_in_a_steady_stream);
	tcase_add_test(t, test_monitor_needs_two_windows_off_the_same_way);
	tcase_add_test(t, test_monitor_sees_a_rise);
	tcase_add_test(t, test_steady_throughput_counts_each_items_share_of_the_fed_time);
	tcase_add_test(t, test_cg_time_per_item_adds_the_threads_rates);
	tcase_add_test(t, test_training_items_count_the_experiment_beside_the_gpu);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_pipeline());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

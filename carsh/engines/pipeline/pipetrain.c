/* The training phase's measurements (engines/pipeline/pipetrain.h). */
#include "engines/pipeline/pipetrain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

size_t ptrain_items(const struct pm_shape *sh)
{
	size_t nmax = pm_max_threads(sh);

	/* CG with 1 .. nmax threads, the one-item experiments PTRAIN_REPEAT times, CG beside the
	 * GPU. */
	return nmax * (nmax + 1) / 2 - 1 + PTRAIN_REPEAT * (sh->gpu ? 3 : 2) + ptrain_beside(sh);
}

size_t ptrain_beside(const struct pm_shape *sh)
{
	return sh->gpu && sh->nc >= 2 ? sh->nc - 1 : 0;
}

/* The run's energy in 000's domains: RAPL's packages as C, NVML's GPU as G. The uncore has
 * no counter of its own here (the package includes it): U stays 0 (docs/pipeline.md). */
static struct pm_energy run_energy(const struct energy_reading *en)
{
	return (struct pm_energy){en->cpu_ok ? en->cpu_j : 0, en->gpu_ok ? en->gpu_j : 0, 0};
}

static struct pm_energy share(struct pm_energy e, double part, double whole)
{
	double k = whole > 0 ? part / whole : 0;

	return (struct pm_energy){e.c * k, e.g * k, e.u * k};
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median item of r[0 .. n-1], stage by stage (and transfer by transfer). */
static struct prun_item median_item(const struct prun_item *r, size_t n, unsigned s)
{
	struct prun_item m;
	double v[PTRAIN_REPEAT];

	memset(&m, 0, sizeof(m));
	for (unsigned k = 0; k < s; k++) {
		for (size_t i = 0; i < n; i++)
			v[i] = r[i].stage[k];
		m.stage[k] = median(v, n);
		for (size_t i = 0; i < n; i++)
			v[i] = r[i].h2d[k];
		m.h2d[k] = median(v, n);
		for (size_t i = 0; i < n; i++)
			v[i] = r[i].d2h[k];
		m.d2h[k] = median(v, n);
	}
	return m;
}

/* One item per stage: times, and the energy per item split in proportion to them (the
 * counters tick too coarsely to see a stage of a few milliseconds: the power is taken as
 * constant over the run). */
static void per_stage(struct ptrain *t, const struct prun_item *r, struct pm_energy en,
                      enum pd_dom d)
{
	struct pm_meas *m = &t->m;
	double sum = 0, kernels = 0;

	for (unsigned k = 0; k < m->sh.s; k++) {
		sum += r->stage[k] + r->h2d[k] + r->d2h[k];
		kernels += r->stage[k];
	}
	for (unsigned k = 0; k < m->sh.s; k++) {
		struct pm_stage *st = &m->st[k];
		struct pm_energy ek = share(en, r->stage[k] + r->h2d[k] + r->d2h[k], sum);

		if (d == PD_CG) {
			st->t_cg = m->t_cgn_stage[1][k] = r->stage[k];
			st->h2d_cg = r->h2d[k];
			st->d2h_cg = r->d2h[k];
			st->e_cg = ek;
		} else if (d == PD_MG) {
			st->t_mg = r->stage[k];
			st->h2d_mg = r->h2d[k];
			st->d2h_mg = r->d2h[k];
			st->e_mg = ek;
		} else if ((m->sh.gpu_ok >> k) & 1u) {
			st->t_g = r->stage[k];
			st->h2d_g = r->h2d[k];
			st->d2h_g = r->d2h[k];
			st->e_g = ek;
		}
	}
	/* An item of a homogeneous CG run moves nothing between stages. */
	if (d == PD_CG) {
		m->t_cgn[1] = kernels;
		m->e_cgn[1] = en;
	}
}

struct experiment {
	struct prun_policy pol;
	size_t n;        /* items at once */
	size_t runs;     /* one-item experiments: PTRAIN_REPEAT runs, one after the other */
	enum pd_dom dom; /* per-stage figures of a one-item run: CG, MG or GPU */
	bool beside;     /* n CG items beside the GPU's feeder (prun_batch_beside) */
	char what[48];
};

double ptrain_time_per_item(const struct prun_item *rec, size_t n)
{
	double rate = 0;

	for (size_t i = 0; i < n; i++)
		if (rec[i].wall > 0)
			rate += 1 / rec[i].wall;
	return rate > 0 ? 1 / rate : 0;
}

/* Stage k's mean time over n items. */
static double mean_stage(const struct prun_item *rec, size_t n, unsigned k)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += rec[i].stage[k];
	return n ? sum / (double)n : 0;
}

/* A batch of n items done: its items and times into t. */
static void account(struct ptrain *t, const struct prun_batch *b, size_t n)
{
	t->items += n;
	t->m.t_collect += b->total;
	t->m.t_in += b->t_in;
	t->m.t_out += b->t_out;
}

/* The CG experiment beside the GPU: x->n items on cores while another thread feeds the GPU;
 * each stage's mean time in it, the feeder's mean GPU item beside them and its median item
 * alone before them (docs/pipeline.md, "Training").
 * Its energy is not kept: the feeder's GPU items are in it. */
static int beside(struct prun_env *env, struct ptrain *t, const struct experiment *x,
                  struct cs_err *e)
{
	struct prun_batch b = {0};
	struct prun_fed fed;
	int rc = prun_batch_beside(env, &x->pol, t->first + t->items, x->n, NULL, &b, &fed, e);

	if (rc == 0) {
		account(t, &b, x->n);
		t->m.beside_n = (unsigned)x->n;
		t->m.t_gpu_fed = fed.item;
		t->m.t_gpu_fed_median = fed.median;
		t->m.t_gpu_alone = fed.alone;
		for (unsigned k = 0; k < t->m.sh.s; k++)
			t->m.t_beside_stage[k] = mean_stage(b.rec, x->n, k);
	}
	free(b.rec);
	return rc;
}

static int experiment(struct prun_env *env, struct ptrain *t, const struct experiment *x,
                      struct energy_meter *meter, struct cs_err *e)
{
	size_t first = t->first + t->items;
	struct prun_batch b;
	int rc;

	/* The GPU streams in a running phase; after the CG experiments it has been idle. */
	if (x->dom == PD_GPU && prun_warm_gpu(env, first, PTRAIN_REPEAT, e))
		return 1;
	/* n items at once; a one-item experiment's items one right after the other. */
	if (x->beside)
		return beside(env, t, x, e);
	if (x->n > 1)
		rc = prun_batch(env, &x->pol, first, x->n, meter, &b, e);
	else
		rc = prun_sequence(env, &x->pol, first, x->runs, meter, &b, e);
	if (rc == 0 && x->n > 1) {
		account(t, &b, x->n);
		t->m.t_cgn[x->n] = ptrain_time_per_item(b.rec, x->n);
		t->m.e_cgn[x->n] = share(run_energy(&b.en), 1, (double)x->n);
		for (unsigned k = 0; k < t->m.sh.s; k++)
			t->m.t_cgn_stage[x->n][k] = mean_stage(b.rec, x->n, k);
	} else if (rc == 0) {
		struct prun_item med = median_item(b.rec, x->runs, t->m.sh.s);

		account(t, &b, x->runs);
		per_stage(t, &med, share(run_energy(&b.en), 1, (double)x->runs), x->dom);
		if (x->dom == PD_GPU && b.wall > 0)
			t->m.gpu_host = fmin(1.0, b.cpu / b.wall);
	}
	free(b.rec);
	return rc;
}

/* The experiments in order: CG 1 .. max threads, the GPU, MG. */
static size_t plan_experiments(const struct pm_shape *sh, struct experiment *x)
{
	unsigned nmax = pm_max_threads(sh);
	size_t n = 0;

	for (unsigned i = 1; i <= nmax; i++) {
		x[n] = (struct experiment){.pol = {.c = {false, false, i, 0}, .xfer = i == 1},
		                           .n = i,
		                           .runs = i == 1 ? PTRAIN_REPEAT : 1,
		                           .dom = PD_CG};
		snprintf(x[n++].what, sizeof(x[0].what), "training: CG, %u thread%s", i,
		         i == 1 ? "" : "s");
	}
	if (sh->gpu) {
		x[n] = (struct experiment){
		        .pol = {.c = {false, false, 1, 0}, .gpu_all = true, .xfer = true},
		        .n = 1,
		        .runs = PTRAIN_REPEAT,
		        .dom = PD_GPU};
		snprintf(x[n++].what, sizeof(x[0].what), "training: GPU");
	}
	if (ptrain_beside(sh)) {
		unsigned b = (unsigned)ptrain_beside(sh);

		x[n] = (struct experiment){.pol = {.c = {false, false, b, 0}},
		                           .n = b,
		                           .runs = 1,
		                           .dom = PD_CG,
		                           .beside = true};
		snprintf(x[n++].what, sizeof(x[0].what), "training: CG, %u thread%s beside the GPU",
		         b, b == 1 ? "" : "s");
	}
	x[n] = (struct experiment){.pol = {.c = {false, true, 1, 0}, .xfer = true},
	                           .n = 1,
	                           .runs = PTRAIN_REPEAT,
	                           .dom = PD_MG};
	snprintf(x[n++].what, sizeof(x[0].what), "training: MG");
	return n;
}

int ptrain_run(struct prun_env *env, const struct pm_shape *sh, size_t first, size_t end,
               struct energy_meter *meter, double tdp, void (*label)(void *, const char *),
               void *arg, struct ptrain *t, struct cs_err *e)
{
	struct experiment *x = xcalloc(PM_MAX_CORES + 4, sizeof(*x));
	size_t n, done = 0;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->first = first;
	t->m.sh = *sh;
	t->m.energy = meter != NULL;
	t->m.tdp = tdp;
	n = plan_experiments(sh, x);
	for (; done < n && rc == 0; done++) {
		if (first + t->items + x[done].n * x[done].runs > end)
			break; /* the stream ends first: the caller runs what is left */
		if (env->interrupted && *env->interrupted) {
			rc = 130;
			err_set(e, "interrupted");
			break;
		}
		if (label)
			label(arg, x[done].what);
		rc = experiment(env, t, &x[done], meter, e) ? 1 : 0;
	}
	t->complete = rc == 0 && done == n;
	t->ms = t->m.t_collect * 1000.0;
	t->m.n_collect = t->items;
	if (t->items) {
		t->m.t_in /= (double)t->items;
		t->m.t_out /= (double)t->items;
	}
	free(x);
	return rc;
}

/* The adaptive pipeline engine (000 §III-E, §IV; engines/pipeline/pipeline.h, docs/pipeline.md). */
#include "engines/pipeline/pipeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/energy.h"
#include "engines/progress.h"
#include "engines/pipeline/pipeconf.h"
#include "engines/pipeline/pipeknow.h"
#include "engines/pipeline/pipemon.h"
#include "engines/pipeline/pipetrain.h"
#include "runtime/plan.h"
#include "util/alloc.h"
#include "util/clock.h"

struct engine {
	const struct pipe_env *env;
	const struct pipe_plan *pp;
	const struct pipe_opts *o;
	struct pipe_result *res;
	struct job_plan *gen0; /* the generator's plan, for building its programs */
	struct pipe_devs *dv;
	struct prun_env re;
	struct energy_meter *meter; /* NULL unless every counter taking part reads */
	struct pm_shape sh;
	struct pm_flow flow; /* which stage reads and writes which buffer (pipemove.h) */
	size_t ns;           /* N_s */
	struct pknow *know;
	/* The test hook CARSH_PIPELINE_SKEW=CONFIG*FACTOR[+MS]: that configuration's predictions
	 * are multiplied by FACTOR and, in a stream, each of its items takes MS more
	 * (docs/pipeline.md); skew 0: none. */
	struct pm_config skew_c;
	double skew, skew_delay;
	/* the progress line */
	char what[64];
	size_t total;
	struct progress progress;
};

/* ---- progress ---- */

static void draw(struct engine *g, size_t done, bool force)
{
	if (!progress_due(&g->progress, force))
		return;
	fprintf(stderr, "\r\033[K%s: %s", g->pp->d->name, g->what);
	if (g->total) {
		progress_bar(done, g->total, 20);
		fprintf(stderr, " %zu/%zu items", done, g->total);
	}
	fflush(stderr);
}

static void on_progress(void *arg, size_t done)
{
	draw(arg, done, false);
}

static void on_label(void *arg, const char *what)
{
	struct engine *g = arg;

	snprintf(g->what, sizeof(g->what), "%s", what);
	g->total = 0;
	draw(g, 0, true);
}

/* ---- setup ---- */

/* Each stage's reads and writes from its kernel's arguments, and the buffers' sizes. */
static void make_flow(struct engine *g)
{
	struct pm_flow *f = &g->flow;

	memset(f, 0, sizeof(*f));
	f->nb = (unsigned)g->pp->nbufs;
	for (unsigned b = 0; b < f->nb; b++)
		f->bytes[b] = (double)g->pp->bufs[b].bytes;
	for (size_t k = 0; k < g->pp->nstages; k++) {
		const struct pipe_stage_plan *sp = &g->pp->stages[k];

		for (size_t a = 0; a < sp->jp->kp.nargs; a++) {
			enum arg_kind kind = sp->jp->kp.args[a].kind;

			if (sp->buf[a] < 0)
				continue;
			if (arg_is_read(kind))
				f->rd[k] |= (uint64_t)1 << sp->buf[a];
			if (arg_is_written(kind))
				f->wr[k] |= (uint64_t)1 << sp->buf[a];
		}
	}
	if (g->pp->sink_buf >= 0)
		f->sink = (uint64_t)1 << g->pp->sink_buf;
}

static void make_shape(struct engine *g)
{
	g->sh.s = (unsigned)g->pp->nstages;
	g->sh.nc = g->dv->nc;
	g->sh.gpu = g->dv->has_gpu;
	g->sh.gpu_ok = 0;
	for (unsigned k = 0; g->sh.gpu && k < g->sh.s; k++)
		if (g->pp->stages[k].gpu)
			g->sh.gpu_ok |= 1u << k;
	g->ns = ptrain_items(&g->sh);
	make_flow(g);
}

static int open_workers(struct engine *g, struct cs_err *e)
{
	static const struct prun_policy cg = {.c = {false, false, 1, 0}};
	struct prun_env *re = &g->re;
	struct pworker w;
	struct pitem_q q;
	int rc;

	/* MG runs nC+1 threads too, with or without a GPU (000 §II-B). */
	re->nslots = g->dv->nc + 1;
	re->slots = xcalloc(re->nslots, sizeof(*re->slots));
	re->users = xcalloc(g->dv->nc, sizeof(*re->users));
	for (unsigned i = 0; i < re->nslots; i++)
		if (pd_slot_open(g->dv, &re->slots[i], e))
			return -1;
	/* Every thread busy while the Output stage writes: twice the most threads there are.
	 * The training's experiments hold up to nC+1 items at once, whatever --tokens says. */
	g->res->tokens = g->o->tokens ? g->o->tokens : 2 * (size_t)re->nslots;
	if (pitem_pool_new(g->pp, g->res->tokens > re->nslots ? g->res->tokens : re->nslots,
	                   &re->pool, e))
		return -1;
	pworker_init(&w, re, &cg, &re->slots[0], 0);
	q = pworker_queues(&w);
	rc = pitem_pool_prepare(re->pool, g->dv, &q, e);
	pworker_release(&w);
	return rc;
}

/* CARSH_PIPELINE_SKEW=CONFIG*FACTOR[+MS], a test hook: a prediction deliberately wrong, and
 * the configuration made slower than the others whatever the machine. */
static int read_skew(struct engine *g, struct cs_err *e)
{
	const char *v = getenv("CARSH_PIPELINE_SKEW");
	char *star, *end = NULL, *name;
	bool baseline;
	int rc = 0;

	if (!v || !*v)
		return 0;
	name = xstrdup(v);
	star = strrchr(name, '*');
	if (star) {
		*star = '\0';
		g->skew = strtod(star + 1, &end);
		if (*end == '+')
			g->skew_delay = strtod(end + 1, &end) / 1000.0;
	}
	if (!star || *end != '\0' || !(g->skew > 0) || g->skew_delay < 0 ||
	    pm_config_parse(&g->sh, name, &g->skew_c, &baseline, e) || baseline)
		rc = err_set(e, "CARSH_PIPELINE_SKEW='%s': give CONFIG*FACTOR[+MS], FACTOR > 0", v);
	free(name);
	return rc;
}

static int setup(struct engine *g, struct cs_err *e)
{
	struct pipe_result *r = g->res;

	if (!g->pp->files && pipe_plan_generator(g->pp, 0, &g->gen0, e))
		return -1;
	if (pd_open(g->env->rt, g->pp, g->gen0 ? &g->gen0->kp : NULL, g->o->gpu, &g->dv, e))
		return -1;
	make_shape(g);
	r->sh = g->sh;
	r->standin = g->dv->standin;
	r->build_ms = g->dv->build_ms;
	snprintf(r->cpu_name, sizeof(r->cpu_name), "%.150s", g->dv->cpu->name);
	if (g->dv->gpu)
		snprintf(r->gpu_name, sizeof(r->gpu_name), "%.150s", g->dv->gpu->name);
	g->know = pknow_open(NULL, g->pp->d->name, r->cpu_name, r->gpu_name);
	snprintf(r->know_note, sizeof(r->know_note), "%s", pknow_warning(g->know));
	for (unsigned f = 0; f < PCHECK_FAMILIES; f++)
		r->factor[f] = pknow_factor(g->know, f);
	if (read_skew(g, e))
		return -1;
	g->re.pp = g->pp;
	g->re.dv = g->dv;
	g->re.interrupted = g->env->interrupted;
	g->re.progress = on_progress;
	g->re.progress_arg = g;
	return open_workers(g, e);
}

static void teardown(struct engine *g)
{
	for (unsigned i = 0; g->re.slots && i < g->re.nslots; i++)
		pd_slot_close(g->dv, &g->re.slots[i]);
	free(g->re.slots);
	free(g->re.users);
	pitem_pool_free(g->re.pool);
	pd_close(g->dv);
	job_plan_free(g->gen0);
	pknow_free(g->know);
	energy_close(g->meter);
}

/* The energy criteria need every counter that takes part: RAPL, and NVML with a GPU. */
static int open_energy(struct engine *g, struct cs_err *e)
{
	struct pipe_result *r = g->res;
	struct energy_reading rd;
	bool need_gpu = g->dv->gpu != NULL;

	g->meter = energy_open(need_gpu ? g->dv->gpu->name : NULL);
	energy_start(g->meter);
	energy_stop(g->meter, &rd);
	snprintf(r->cpu_note, sizeof(r->cpu_note), "%s", rd.cpu_note);
	snprintf(r->gpu_note, sizeof(r->gpu_note), "%s",
	         need_gpu ? rd.gpu_note
	                  : (g->dv->standin ? "the stand-in is a CPU core" : "no GPU"));
	r->energy_ok = rd.cpu_ok && (!need_gpu || rd.gpu_ok);
	if (g->o->tdp > 0) {
		r->tdp = g->o->tdp;
		snprintf(r->tdp_note, sizeof(r->tdp_note), "%g W (--tdp)", g->o->tdp);
	} else {
		r->tdp = energy_power_limit(g->meter, need_gpu, r->tdp_note, sizeof(r->tdp_note));
	}
	if (!r->energy_ok) {
		energy_close(g->meter);
		g->meter = NULL;
	}
	if (g->o->crit != PM_THROUGHPUT && !r->energy_ok)
		return err_set(e,
		               "--criterion %s needs energy counters, and this machine has none "
		               "readable: CPU: %s%s%s (use --criterion throughput)",
		               pm_criterion_name(g->o->crit), rd.cpu_note,
		               need_gpu ? "; GPU: " : "", need_gpu ? rd.gpu_note : "");
	return 0;
}

static bool same_config(const struct pm_config *a, const struct pm_config *b)
{
	return a->dp == b->dp && a->mg == b->mg && a->threads == b->threads && a->mask == b->mask;
}

/* A configuration's prediction with what the knowledge file corrects (and the test hook's
 * skew); *raw: the model's λ alone. */
static void predict(const struct engine *g, const struct pm_meas *m, const struct pm_config *c,
                    struct pm_pred *p, double *raw)
{
	double k = pknow_factor(g->know, pcheck_family(c));

	pm_predict(m, c, p);
	if (raw)
		*raw = p->lambda;
	if (g->skew > 0 && same_config(c, &g->skew_c))
		k *= g->skew;
	p->lambda *= k;
	p->lambda_q *= k;
}

/* ---- one stretch of the stream under one configuration ---- */

struct monitor {
	struct pmon mon;
	const struct pm_meas *m;
	double ov;
	size_t first, end, ns;
};

/* 000 §IV-B: a change in throughput starts a training once equation 2 allows it, and only
 * while enough items are left to train on. */
static bool monitor_stop(void *arg, double t, size_t done)
{
	struct monitor *mc = arg;

	if (!pmon_item(&mc->mon, t) || mc->end - (mc->first + done) < mc->ns)
		return false;
	return pm_may_retrain(t, pm_delta_t(mc->m, mc->mon.ref), mc->ov);
}

static void run_done(struct engine *g, struct pipe_run *r, const struct prun_stream *s)
{
	r->items = s->done;
	r->ms = s->wall * 1000.0;
	r->lambda = pmon_throughput(s->t_take, s->t_done, s->done, s->t_fed);
	r->retrain = s->stopped;
	r->gpu = s->gpu;
	r->cpu = s->cpu;
	r->energy = -1;
	if (g->meter && s->done && s->en.cpu_ok)
		r->energy = (s->en.cpu_j + (s->en.gpu_ok ? s->en.gpu_j : 0)) / (double)s->done;
}

/* Items first .. end-1, for at most `secs` seconds (0: no limit). t: the training whose
 * predictions go with it (NULL: none); monitor: watch for changes. */
static int run_stretch(struct engine *g, const struct pm_config *c, bool strict, size_t first,
                       size_t end, double secs, const struct pipe_training *t, bool monitor,
                       struct pipe_run *r, struct cs_err *e)
{
	struct prun_policy pol = {.c = *c, .strict = strict};
	struct prun_limits lim = {.tokens = g->res->tokens, .deadline = secs};
	struct monitor mc;
	struct prun_stream s;
	char name[PM_NAME_MAX];
	int rc;

	if (!strict && g->skew > 0 && same_config(c, &g->skew_c))
		pol.delay = g->skew_delay;
	memset(r, 0, sizeof(*r));
	r->c = *c;
	r->strict = strict;
	r->first = first;
	if (t && t->complete && !strict) {
		r->predicted = true;
		predict(g, &t->m, c, &r->pred, NULL);
	}
	snprintf(g->what, sizeof(g->what), "%s %s", strict ? "baseline" : "running",
	         pm_config_name(&g->sh, c, name, sizeof(name)));
	g->total = end - first;
	draw(g, 0, true);
	if (monitor) {
		unsigned w = prun_threads(&g->re, &pol);

		pmon_init(&mc.mon, w * 2 > 8 ? w * 2 : 8, g->o->change, 0);
		mc.m = &t->m;
		mc.ov = g->o->overhead;
		mc.first = first;
		mc.end = end;
		mc.ns = g->ns;
		lim.stop = monitor_stop;
		lim.stop_arg = &mc;
	}
	rc = prun_stream(&g->re, &pol, first, end, &lim, g->meter, &s, e);
	draw(g, s.done, true);
	run_done(g, r, &s);
	free(s.t_done);
	free(s.t_take);
	return rc;
}

/* ---- phases ---- */

static int train(struct engine *g, size_t first, struct pipe_training **out, struct cs_err *e)
{
	struct pipe_result *r = g->res;
	struct pipe_training *t;
	struct ptrain pt;
	int rc;

	r->tr = xrealloc(r->tr, (r->ntr + 1) * sizeof(*r->tr));
	t = memset(&r->tr[r->ntr++], 0, sizeof(*t));
	*out = t;
	rc = ptrain_run(&g->re, &g->sh, first, g->pp->items, g->meter, r->tdp, on_label, g, &pt, e);
	t->first = pt.first;
	t->items = pt.items;
	t->ms = pt.ms;
	t->complete = pt.complete;
	t->m = pt.m;
	t->m.flow = g->flow;
	if (rc || !t->complete)
		return rc;
	t->ncfg = pm_enumerate(&g->sh, &t->cfg);
	t->pred = xcalloc(t->ncfg, sizeof(*t->pred));
	t->raw = xcalloc(t->ncfg, sizeof(*t->raw));
	for (size_t i = 0; i < t->ncfg; i++)
		predict(g, &t->m, &t->cfg[i], &t->pred[i], &t->raw[i]);
	t->chosen = pm_choose(t->cfg, t->pred, t->ncfg, g->o->crit, PM_CHOICE_TOLERANCE, g->sh.nc);
	t->baseline = pm_baseline(&t->m);
	return 0;
}

static struct pipe_run *add_run(struct pipe_run **v, size_t *n)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	return &(*v)[(*n)++];
}

/* --validate: the noise, and what the running phase's check would keep given these
 * measurements: the chosen one (the mean of its two), the next ones and the baseline. */
static void val_check(struct engine *g, const struct pipe_training *t)
{
	struct pipe_result *r = g->res;
	size_t nx[PCHECK_NEXT], idx[PCHECK_NEXT + 2], k, n = 0;
	double meas[PCHECK_NEXT + 2];

	r->val_noise = pcheck_noise(r->val[t->chosen].lambda, r->val_again.lambda);
	idx[n] = t->chosen;
	meas[n++] = (r->val[t->chosen].lambda + r->val_again.lambda) / 2;
	r->val_kept = t->chosen;
	if (!pcheck_disagrees(t->pred[t->chosen].lambda, meas[0], r->val_noise))
		return;
	k = pcheck_next(t->pred, t->ncfg, t->chosen, g->o->crit, nx, PCHECK_NEXT);
	for (size_t j = 0; j < k; j++) {
		idx[n] = nx[j];
		meas[n++] = r->val[nx[j]].lambda;
	}
	idx[n] = r->nval - 1;
	meas[n] = r->val[r->nval - 1].lambda;
	r->val_kept = idx[pcheck_pick(meas, n + 1, r->val_noise)];
}

/* --validate: the CPU alone (no stage on the GPU, CG) with one thread and with nC, measured
 * again after everything else; they ran first. The two runs of one configuration at the
 * validation's two ends tell how far the machine moved while it ran, which the chosen
 * configuration's two runs, both near the end, do not (docs/pipeline.md, "Measured results"). */
static int val_drift(struct engine *g, const struct pipe_training *t, size_t n, struct cs_err *e)
{
	struct pipe_result *r = g->res;
	unsigned want[2] = {1, t->m.sh.nc};
	int rc = 0;

	for (unsigned w = 0; w < 2 && rc == 0 && (w == 0 || want[1] > want[0]); w++)
		for (size_t i = 0; i < t->ncfg; i++) {
			const struct pm_config *c = &t->cfg[i];

			if (c->dp || c->mg || c->mask != 0 || c->threads != want[w])
				continue;
			r->val_drift_of[r->nval_drift] = i;
			rc = run_stretch(g, c, false, 0, n, g->o->val_secs, t, false,
			                 &r->val_drift[r->nval_drift++], e);
			break;
		}
	return rc;
}

/* --validate: every configuration, then the baseline, each over the first val_items items
 * (the whole stream by default), for val_secs at most. */
static int validate(struct engine *g, const struct pipe_training *t, struct cs_err *e)
{
	struct pipe_result *r = g->res;
	size_t n =
	        g->o->val_items && g->o->val_items < g->pp->items ? g->o->val_items : g->pp->items;
	int rc = 0;

	r->val_items = n;
	r->val_secs = g->o->val_secs;
	for (size_t i = 0; i < t->ncfg && rc == 0; i++)
		rc = run_stretch(g, &t->cfg[i], false, 0, n, g->o->val_secs, t, false,
		                 add_run(&r->val, &r->nval), e);
	if (rc == 0)
		rc = run_stretch(g, &t->baseline, true, 0, n, g->o->val_secs, t, false,
		                 add_run(&r->val, &r->nval), e);
	/* The chosen configuration once more, last: the noise between two runs of one
	 * configuration in this process. */
	if (rc == 0)
		rc = run_stretch(g, &t->cfg[t->chosen], false, 0, n, g->o->val_secs, t, false,
		                 &r->val_again, e);
	if (rc == 0)
		rc = val_drift(g, t, n, e);
	if (rc == 0)
		val_check(g, t);
	return rc;
}

/* ---- the running phase's check (engines/pipeline/pipecheck.h) ---- */

/* A check's measurement takes at least PCHECK_MIN_S seconds, or PCHECK_SHARE of the
 * training's time where that is longer, and at most a share of the stream left: all of its
 * measurements together take at most half of it. */
#define PCHECK_MIN_S        0.2
#define PCHECK_SHARE        0.25
#define PCHECK_MEASUREMENTS (PCHECK_NEXT + 3)

/* What the check measures next, and what it measured. */
struct probe {
	struct engine *g;
	const struct pipe_training *t;
	struct pipe_check *ck;
	size_t *next, per;
	double secs;
};

/* One measurement of c on the live stream: its throughput into *lambda, its items added. */
static int measure(struct probe *pb, const struct pm_config *c, bool strict, double *lambda,
                   size_t *items, struct cs_err *e)
{
	struct engine *g = pb->g;
	struct pipe_result *r = g->res;
	size_t end = *pb->next + pb->per;
	struct pipe_run *run = add_run(&r->runs, &r->nruns);
	int rc;

	if (end > g->pp->items)
		end = g->pp->items;
	rc = run_stretch(g, c, strict, *pb->next, end, pb->secs, pb->t, false, run, e);
	run->check = true;
	*pb->next += run->items;
	pb->ck->items += run->items;
	*items += run->items;
	*lambda = run->lambda;
	return rc;
}

/* The configurations the model ranks next and the baseline, after meas[0] (the chosen one). */
static int measure_others(struct probe *pb, struct pm_config *cand, bool *strict, double *meas,
                          size_t *items, size_t *n, struct cs_err *e)
{
	const struct pipe_training *t = pb->t;
	size_t nx[PCHECK_NEXT],
	        k = pcheck_next(t->pred, t->ncfg, t->chosen, pb->g->o->crit, nx, PCHECK_NEXT);
	int rc = 0;

	for (size_t j = 0; j < k && rc == 0; j++, (*n)++) {
		cand[*n] = t->cfg[nx[j]];
		rc = measure(pb, &cand[*n], false, &meas[*n], &items[*n], e);
		if (rc == 0)
			pknow_learn(pb->g->know, pcheck_family(&cand[*n]),
			            t->raw[nx[j]] > 0 ? meas[*n] / t->raw[nx[j]] : 0);
	}
	if (rc == 0) {
		cand[*n] = t->baseline;
		strict[*n] = true;
		rc = measure(pb, &cand[*n], true, &meas[*n], &items[*n], e);
		(*n)++;
	}
	return rc;
}

/* After training t: the chosen configuration measured twice on the stream from *next; where
 * it disagrees with its prediction beyond their noise, the next ones and the baseline too.
 * *cur and *strict: what runs the rest of the stream. A stream too short for it is not
 * checked. */
static int check(struct engine *g, const struct pipe_training *t, size_t *next,
                 struct pm_config *cur, bool *strict, struct cs_err *e)
{
	struct pipe_result *r = g->res;
	struct pm_config cand[PCHECK_MEASUREMENTS];
	bool cstrict[PCHECK_MEASUREMENTS] = {false};
	double meas[PCHECK_MEASUREMENTS];
	size_t items[PCHECK_MEASUREMENTS] = {0}, n = 1, pick;
	struct probe pb = {g,
	                   t,
	                   NULL,
	                   next,
	                   (g->pp->items - *next) / (2 * PCHECK_MEASUREMENTS),
	                   fmax(PCHECK_MIN_S, t->ms / 1000.0 * PCHECK_SHARE)};
	struct pipe_check *ck;
	int rc;

	if (pb.per < 2 || g->o->crit != PM_THROUGHPUT)
		return 0;
	r->checks = xrealloc(r->checks, (r->nchecks + 1) * sizeof(*r->checks));
	ck = pb.ck = memset(&r->checks[r->nchecks++], 0, sizeof(*ck));
	ck->training = (size_t)(t - r->tr);
	ck->first = *next;
	ck->run0 = r->nruns;
	cand[0] = t->cfg[t->chosen];
	ck->pred = t->pred[t->chosen].lambda;
	rc = measure(&pb, &cand[0], false, &ck->meas[0], &items[0], e);
	if (rc == 0)
		rc = measure(&pb, &cand[0], false, &ck->meas[1], &items[0], e);
	if (rc == 0) {
		ck->noise = pcheck_noise(ck->meas[0], ck->meas[1]);
		meas[0] = (ck->meas[0] + ck->meas[1]) / 2;
		pknow_learn(g->know, pcheck_family(&cand[0]),
		            t->raw[t->chosen] > 0 ? meas[0] / t->raw[t->chosen] : 0);
		ck->disagrees = pcheck_disagrees(ck->pred, meas[0], ck->noise);
	}
	if (rc == 0 && ck->disagrees)
		rc = measure_others(&pb, cand, cstrict, meas, items, &n, e);
	ck->nrun = r->nruns - ck->run0;
	if (rc)
		return rc;
	pick = pcheck_pick(meas, n, ck->noise);
	ck->kept = *cur = cand[pick];
	ck->kept_strict = *strict = cstrict[pick];
	ck->switched = pick != 0;
	ck->cost = ck->items - items[pick];
	return 0;
}

/* Training, then running with the choice, again after a change; what the training leaves of
 * a stream too short for it runs homogeneous CG on every core. */
static int run_adaptive(struct engine *g, bool baseline, struct cs_err *e)
{
	struct pipe_result *r = g->res;
	const struct pipe_training *t = NULL;
	struct pm_config cur;
	bool strict;
	size_t next = 0;
	int rc = 0;

	while (next < g->pp->items && rc == 0) {
		struct pipe_training *nt;
		struct pipe_run *run;

		rc = train(g, next, &nt, e);
		next += nt->items;
		if (rc)
			break;
		if (!nt->complete) {
			cur = (struct pm_config){false, false, pm_max_threads(&g->sh), 0};
			if (next < g->pp->items)
				rc = run_stretch(g, &cur, false, next, g->pp->items, 0, NULL, false,
				                 add_run(&r->runs, &r->nruns), e);
			break;
		}
		t = nt;
		if (g->o->validate)
			return validate(g, t, e);
		if (next == g->pp->items)
			break; /* the training took the whole stream */
		cur = baseline ? t->baseline : t->cfg[t->chosen];
		strict = baseline;
		if (!baseline)
			rc = check(g, t, &next, &cur, &strict, e);
		if (rc || next == g->pp->items)
			break;
		run = add_run(&r->runs, &r->nruns);
		rc = run_stretch(g, &cur, strict, next, g->pp->items, 0, t, !baseline, run, e);
		next += run->items;
		if (!run->retrain)
			break;
	}
	return rc;
}

static int check_opts(struct engine *g, struct pm_config *c, bool *baseline, struct cs_err *e)
{
	const struct pipe_opts *o = g->o;

	*baseline = false;
	if (o->config && pm_config_parse(&g->sh, o->config, c, baseline, e))
		return err_prefix(e, "--config ");
	if (o->config && !*baseline && (o->explain || o->validate))
		return err_set(e,
		               "--%s needs the training phase: leave out --config (or give "
		               "--config baseline)",
		               o->validate ? "validate" : "explain");
	if (o->validate && *baseline)
		return err_set(e, "--validate runs the baseline too: leave out --config");
	if ((o->validate || o->explain) && g->pp->items < g->ns)
		return err_set(e,
		               "--%s: the stream has %zu item%s and the training needs %zu "
		               "(%u CPU core%s%s; give COUNT or more files)",
		               o->validate ? "validate" : "explain", g->pp->items,
		               g->pp->items == 1 ? "" : "s", g->ns, g->sh.nc,
		               g->sh.nc == 1 ? "" : "s", g->sh.gpu ? " and a GPU" : ", no GPU");
	return 0;
}

/* What the checks learnt, for the next run; a file that cannot be written costs this run
 * nothing but a note in the report. */
static void save_knowledge(struct engine *g)
{
	struct cs_err e = {{0}};

	if (pknow_save(g->know, &e))
		snprintf(g->res->know_note, sizeof(g->res->know_note),
		         "the corrections were not saved: %.260s", e.msg);
}

static int run_engine(struct engine *g, double t0, struct cs_err *e)
{
	struct pm_config c;
	bool baseline;
	int rc;
	double t;

	if (setup(g, e) || open_energy(g, e) || check_opts(g, &c, &baseline, e))
		return 1;
	on_label(g, "warming up");
	if (prun_warm_up(&g->re, 0, e))
		return 1;
	g->res->adaptive = !g->o->config;
	g->res->setup_ms = clock_ms() - t0;
	t = clock_ms();
	if (g->o->config && !baseline)
		rc = run_stretch(g, &c, false, 0, g->pp->items, 0, NULL, false,
		                 add_run(&g->res->runs, &g->res->nruns), e);
	else
		rc = run_adaptive(g, baseline, e);
	g->res->time_ms = clock_ms() - t;
	if (rc == 0)
		save_knowledge(g);
	return rc;
}

int pipeline_run(const struct pipe_env *env, const struct pipe_plan *pp, const struct pipe_opts *o,
                 struct pipe_result *res, struct cs_err *e)
{
	struct engine g;
	double t0 = clock_ms();
	int rc;

	memset(res, 0, sizeof(*res));
	memset(&g, 0, sizeof(g));
	g.env = env;
	g.pp = pp;
	g.o = o;
	g.res = res;
	g.progress.on = o->progress;
	res->name = xstrdup(pp->d->name);
	res->items = pp->items;
	for (size_t k = 0; k < pp->nstages; k++)
		res->stage_names[k] = pp->stages[k].name;
	res->crit = o->crit;
	res->overhead = o->overhead;
	pthread_mutex_init(&g.re.gpu, NULL);
	pthread_mutex_init(&g.re.mg, NULL);
	pthread_mutex_init(&g.re.cores, NULL);
	rc = run_engine(&g, t0, e);
	progress_end(&g.progress);
	teardown(&g);
	pthread_mutex_destroy(&g.re.gpu);
	pthread_mutex_destroy(&g.re.mg);
	pthread_mutex_destroy(&g.re.cores);
	if (rc)
		pipe_result_free(res);
	return rc;
}

void pipe_result_free(struct pipe_result *r)
{
	for (size_t i = 0; i < r->ntr; i++) {
		free(r->tr[i].cfg);
		free(r->tr[i].pred);
		free(r->tr[i].raw);
	}
	free(r->tr);
	free(r->runs);
	free(r->checks);
	free(r->val);
	free(r->name);
	memset(r, 0, sizeof(*r));
}

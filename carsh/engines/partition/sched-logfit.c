/* LogFit (003 §4), the GPUs' side: four samples nEU·2^(k-1) per GPU, a least-squares fit of
 * a·ln(x)+b, the GPU chunk a/thld with the fourth sample replaced by the last chunk; samples
 * and throughputs kept from one time step to the next, or a known profile instead
 * (sched_prime). The cores' side is sched-logfit-cpu.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/partition/sched-learn.h"
#include "engines/partition/sched-logfit-int.h"
#include "util/alloc.h"

#define ASK_AGAIN 4

/* LogFit's exploration (not in 003): the GPU stops sampling after two samples once they
 * have taken more than this fraction of the step's predicted time. */
#define EXPLORE_FRAC 0.02

/* The fit of the sample set, and the recommended GPU chunk a/thld. Where the fit says
 * nothing (a <= 0: the throughput does not grow with the chunk; 003 leaves the case open)
 * the chunk stays as it was, and after the first fit it is the best measured sample's size;
 * it is never below the first sample, nEU. */
static void logfit_refit(struct sched *s, struct lgpu *g)
{
	double a, b;

	if (g->fit.grec <= 0) {
		unsigned best = 0;

		for (unsigned i = 1; i < g->nsamp; i++)
			if (g->sy[i] > g->sy[best])
				best = i;
		g->fit.grec = g->sx[best];
	}
	if (logfit_fit(g->sx, g->sy, g->nsamp, &a, &b) == 0) {
		g->fit.fitted = true;
		g->fit.a = a;
		g->fit.b = b;
		if (logfit_gpu_chunk(a, s->c.thld) > 0)
			g->fit.grec = logfit_gpu_chunk(a, s->c.thld);
	}
	if (g->fit.grec < sched_first_sample(s, g->com))
		g->fit.grec = sched_first_sample(s, g->com);
}

/* The GPU's time for a chunk of x items by its fit (or its last throughput before the
 * first fit). Where the fit predicts no throughput (a log curve below its samples' range),
 * the slowest sample's throughput stands in: a chunk that small costs what the smallest
 * sample cost at least. */
static double gpu_chunk_ms(const struct sched *s, const struct lgpu *g, double x)
{
	double y = g->fit.fitted ? logfit_eval(g->fit.a, g->fit.b, x) : lgpu_lambda(s, g);

	for (unsigned i = 0; !(y > 0) && i < g->nsamp; i++)
		if (g->sy[i] > 0 && (!(y > 0) || g->sy[i] < y))
			y = g->sy[i];
	return y > 0 ? x / y : INFINITY;
}

/* The GPU's chunk when the others (lc items/ms together: the cores, and the other GPUs)
 * take part: its recommended chunk G, but no more than ends with the others' rest of what is
 * left, c/λG(c) = (r - c)/lc, found by bisection (the GPU's time grows with c, the others'
 * shrinks); 0 when even the smallest chunk the fit knows, nEU, would end after the others
 * have done all of r. Where G ≥ r 003 gives the GPU all of what is left or nothing (003
 * §5.2); either leaves one side idle while the other runs, a third of a step on a Jacobi
 * grid where a discrete GPU is as fast as 16 cores (docs/partition.md). */
static double gpu_balanced_chunk(const struct sched *s, const struct lgpu *g, size_t r, double lc)
{
	double lo = fmin(sched_first_sample(s, g->com), (double)r),
	       hi = fmin(g->fit.grec, (double)r);

	if (gpu_chunk_ms(s, g, hi) <= ((double)r - hi) / lc)
		return hi;
	if (gpu_chunk_ms(s, g, lo) > ((double)r - lo) / lc)
		return 0;
	for (int i = 0; i < 40 && hi - lo > (double)s->c.granule; i++) {
		double mid = (lo + hi) / 2;

		if (gpu_chunk_ms(s, g, mid) <= ((double)r - mid) / lc)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The throughput of the GPUs other than g that can take a share of what is left (r): those
 * not running a chunk and not out of the step, at their fitted throughput at their chunk (up
 * to r), else their last one; 0 with one GPU. A GPU busy with a chunk is left out: counted,
 * two GPUs each left the rest of a step to the other and to the cores, which then finished
 * it alone (a tenth of a step in the simulation). */
static double other_gpus(const struct sched *s, const struct lgpu *g, size_t r)
{
	const struct logfit *lf = logfit_of(s);
	double t = 0;

	for (unsigned i = 0; i < s->ng; i++) {
		const struct lgpu *o = &lf->g[i];
		double y = 0;

		if (o == g || o->off || o->com->running)
			continue;
		if (o->fit.fitted)
			y = logfit_eval(o->fit.a, o->fit.b, fmin(o->fit.grec, (double)r));
		if (!(y > 0))
			y = lgpu_lambda(s, o);
		t += y > 0 ? y : 0;
	}
	return t;
}

/* x, or all of r where x would leave less than an eighth of itself: a second launch for the
 * scrap costs more than the fit gains (its throughput only grows with the chunk): on a
 * discrete GPU a scrap of 64 items after G = 131008 costs 0.03-0.07 ms, a fifth of an SpMV
 * step. */
static double no_scrap(const struct sched *s, double x, size_t r)
{
	/* With several GPUs the scrap is another GPU's to take (the simulations lost 2-3 %). */
	return s->ng == 1 && (double)r - x < x / 8 ? (double)r : x;
}

static double fit_chunk(const struct sched *s, const struct lgpu *g, size_t r)
{
	return no_scrap(s, g->fit.grec, r);
}

/* Whether core d counts in the GPU's share of a step (primed, or before the cores have
 * measured in it): it would not sit out from the start. */
static bool counts_at_start(const struct sched *s, unsigned d, double lg)
{
	const struct logfit *lf = logfit_of(s);
	double l = sched_cpu_lambda(s, d);

	return l > 0 && sched_least_chunk_ms(lf->learn, l) <= (double)s->c.items / lg;
}

/* The GPU's share by the cost map of the items from `from` on (sched_map_gpu_share), 0 where
 * there is none. */
static double map_share(const struct sched *s, size_t from)
{
	const struct logfit *lf = logfit_of(s);
	double lg = sched_gpu_lambda(s), share;
	bool *counts;

	if (!sched_map_ready(lf->learn) || !(lg > 0))
		return 0;
	counts = xcalloc(s->c.ncpu ? s->c.ncpu : 1, sizeof(*counts));
	for (unsigned d = 0; d < s->c.ncpu; d++)
		counts[d] = counts_at_start(s, d, lg);
	share = sched_map_gpu_share(lf->learn, s->c.ncpu, counts, from);
	free(counts);
	return share;
}

/* The GPU's share of what is left (r) by the last throughputs, its own and those of the cores
 * that would not sit out, where no core has finished a chunk in this step (0 where there is
 * none): by the cost map where there is one. Not in 003, whose GPU asks when the cores have.
 * A core standing in for the GPU asks first, and where the fit's G covered the step it took
 * every step whole: the fit of Mandelbrot's whole step falls with the size and leaves G
 * larger than the space, and a step took twice as long as a split. */
static double share_by_last(const struct sched *s, const struct lgpu *g, size_t r)
{
	const struct logfit *lf = logfit_of(s);
	double lg = lgpu_lambda(s, g), lc = 0, by_cost;

	if (lf->primed || s->ng != 1 || lf->cpu_fresh > 0 || lf->cores_out || !(lg > 0))
		return 0;
	for (unsigned d = 0; d < s->c.ncpu; d++)
		if (s->lambda[d] > 0 && counts_at_start(s, d, lg))
			lc += s->lambda[d];
	if (!(lc > 0))
		return 0;
	if ((by_cost = map_share(s, s->pool.next)) > 0)
		return by_cost;
	return (double)r * lg / (lg + lc);
}

/* 003 §4: the GPU's chunk is G = a/thld. Where less than that is left, the GPU takes what
 * is left if its fitted throughput there, a·ln(R) + b, beats the cores' together; else
 * nothing more in this step (003 §5.2: "the number of available iterations is not enough to
 * assign to the GPU a chunk sufficiently large to obtain the predicted GPU throughput, so
 * it's not scheduled on the GPU"). With several GPUs the others count as the cores do.
 * Before a core has finished a chunk in the step, no more than its share (share_by_last). */
static enum sched_answer logfit_gpu(struct sched *s, struct lgpu *g, struct sched_chunk *out)
{
	const struct logfit *lf = logfit_of(s);
	size_t r = left(&s->pool);
	double lc = sched_cpu_total(s), lo, last, x;
	bool cores;

	if (left(&g->com->r) > 0) /* its share, set aside at the step's start */
		return sched_take(s, &g->com->r, left(&g->com->r), PHASE_FIT, out);
	if (r == 0 || g->off)
		return SCHED_DONE;
	if (!lf->primed && g->nsamp < g->samp_goal)
		return sched_take(s, &s->pool,
		                  sched_round_chunk(s, sched_sample(s, g->com, g->nsamp + 1), r),
		                  PHASE_SAMPLE, out);
	/* Only on throughputs the cores measured in this step: the last step's may come from
	 * other work, and would take the GPU out of a whole step. */
	cores = s->c.ncpu > 0 && lc > 0 && lf->cpu_fresh > 0 && !lf->cores_out;
	lo = (cores ? lc : 0) + other_gpus(s, g, r);
	if (cores || lo > 0) {
		double c = gpu_balanced_chunk(s, g, r, lo);

		if (c <= 0) {
			g->off = true;
			return SCHED_DONE;
		}
		if (c < fmin(g->fit.grec, (double)r))
			return sched_take(s, &s->pool, sched_round_chunk(s, c, r), PHASE_TAIL, out);
	}
	x = fit_chunk(s, g, r);
	if ((last = share_by_last(s, g, r)) > 0)
		x = fmin(x, no_scrap(s, last, r));
	return sched_take(s, &s->pool, sched_round_chunk(s, x, r), PHASE_FIT, out);
}

static enum sched_answer logfit_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	return is_gpu(s, dev) ? logfit_gpu(s, lgpu_of(s, dev), out) : sched_logfit_cpu(s, dev, out);
}

/* The GPU's sample set is complete, or its samples cost too much (EXPLORE_FRAC of the step
 * at the last sample's throughput with the other GPUs', a pessimistic prediction since the
 * throughput grows with the chunk): fit what there is, two samples at least. */
static bool samples_enough(const struct sched *s, const struct lgpu *g, double lambda)
{
	return g->nsamp >= g->samp_goal ||
	       (g->nsamp >= 2 && g->samp_ms > EXPLORE_FRAC * (double)s->c.items /
	                                              (lambda + other_gpus(s, g, s->c.items)));
}

static void logfit_gpu_done(struct sched *s, struct lgpu *g, const struct sched_chunk *c,
                            double lambda)
{
	if (logfit_of(s)->primed)
		return; /* the chunk follows the throughputs (logfit_prime_step) */
	if (c->phase == PHASE_SAMPLE && g->nsamp < g->samp_goal) {
		g->sx[g->nsamp] = (double)c->size;
		g->sy[g->nsamp] = lambda;
		g->nsamp++;
		g->samp_ms += (double)c->size / lambda;
		if (samples_enough(s, g, lambda)) {
			g->samp_goal = g->nsamp;
			logfit_refit(s, g);
		}
		return;
	}
	/* 003 §4: the fourth sample is replaced by the last chunk and its throughput; but not
	 * by a chunk smaller than the fit recommends (the end of a step: what was left, or a
	 * tail sized against the cores), whose throughput is the small end of the curve's and
	 * would move the next chunk there: a 11-item rest made a 12629-item chunk 42. */
	if (c->phase == PHASE_TAIL || (double)c->size + (double)s->c.granule <= g->fit.grec)
		return;
	g->sx[g->samp_goal - 1] = (double)c->size;
	g->sy[g->samp_goal - 1] = lambda;
	logfit_refit(s, g);
}

/* What a core's chunk tells the cores' side (sched-logfit-cpu.c). */
static void logfit_core_done(struct logfit *lf, unsigned dev, const struct sched_chunk *c)
{
	lf->out_step[dev] = 0;
	lf->cpu_fresh++;
	lf->clast[dev] = c->size;
}

static void logfit_done(struct sched *s, unsigned dev, const struct sched_chunk *c, double ms,
                        double lambda)
{
	struct logfit *lf = logfit_of(s);
	struct lgpu *g;

	learn_done(lf->learn, dev, is_gpu(s, dev), c, ms);
	if (!is_gpu(s, dev)) {
		logfit_core_done(lf, dev, c);
		return;
	}
	g = lgpu_of(s, dev);
	g->last = c->size;
	if (c->size >= g->big_size) {
		g->big_size = c->size;
		g->big_lg = lambda;
	}
	logfit_gpu_done(s, g, c, lambda);
}

/* A primed run (a known profile) sizes each GPU's chunk as its share of the step by the
 * throughputs, counting only the cores that do not sit out at the start of the step. */
static void logfit_prime_step(struct sched *s)
{
	const struct logfit *lf = logfit_of(s);
	double lg = sched_gpu_lambda(s), lc = 0;

	if (!lf->primed || !(lg > 0))
		return;
	for (unsigned d = 0; d < s->c.ncpu; d++)
		if (counts_at_start(s, d, lg))
			lc += sched_cpu_lambda(s, d);
	for (unsigned i = 0; i < s->ng; i++) {
		struct lgpu *g = &lf->g[i];
		double li = s->ng == 1 ? lg : lgpu_lambda(s, g);

		g->fit.grec =
		        fmax((double)s->c.items * li / (lg + lc), sched_first_sample(s, g->com));
		/* Nor less than the share of the items the GPU took in the runs before: the cores'
		 * throughput comes from where they ran, and their share by it from where they did
		 * not. Simulated, 16 cores beside a GPU 25 times their worth on the neighbours'
		 * dense cells: a first run's cores measured light regions only and took 8.5 % of
		 * the items, and their throughput set 31 % aside for them in the next run, whose
		 * first step met the cells for 87 ms where the GPU alone takes 7.9. */
		if (s->ng == 1)
			g->fit.grec = fmax(g->fit.grec, (double)s->c.items * lf->primed_share);
		/* The knowledge base shares the GPUs' throughput among them by compute units:
		 * until a GPU has measured its own, its share comes in halves, so that the
		 * second follows what the first measured. */
		if (s->ng > 1 && !(g->big_lg > 0))
			g->fit.grec = fmax(g->fit.grec / 2, sched_first_sample(s, g->com));
	}
}

/* A primed step with one GPU sets the GPU's chunk aside at the step's start, as Static and
 * Marrow (001 §3.2) set its share: the GPU writes its copy streams before it asks (2-3 ms a
 * Jacobi step over PCIe), and the cores, asking meanwhile, took what its share was to be,
 * leaving it a tail sized against the rows still in the pool, not those in the cores'
 * hands (Jacobi 2048², 40 % GPU at best: LogFit gave it 10-29 % and took 1.07-1.10 times
 * Static's time). With several GPUs the shares stay in the pool: set aside, the simulation
 * of two GPUs lost 6 % (0.937 of the oracle). */
static void reserve_gpu_share(struct sched *s)
{
	const struct logfit *lf = logfit_of(s);
	struct lgpu *g = &lf->g[0];
	double by_cost;
	size_t n;

	if (!lf->primed || s->ng != 1 || !(g->fit.grec > 0))
		return;
	by_cost = map_share(s, 0);
	n = sched_round_chunk(s, by_cost > 0 ? by_cost : fit_chunk(s, g, s->c.items), s->c.items);
	g->com->r = (struct range){0, n};
	s->pool.next = n;
}

/* A step's last GPU chunk is often what was left, too small to fill the GPU: the next step
 * starts from the throughput of the step's largest GPU chunk (each GPU its own). */
static void logfit_step_begin(struct sched *s)
{
	struct logfit *lf = logfit_of(s);

	learn_step(lf->learn);
	lf->cpu_fresh = 0;
	lf->cores_out = false;
	/* A new step may meet other work: every core is asked again. */
	memset(lf->out, 0, (s->c.ncpu ? s->c.ncpu : 1) * sizeof(*lf->out));
	lf->step++;
	for (unsigned i = 0; i < s->ng; i++) {
		struct lgpu *g = &lf->g[i];

		g->off = false;

		if (g->big_lg > 0)
			s->lambda[s->c.ncpu + i] = g->big_lg;
		g->big_size = 0;
	}
	logfit_prime_step(s);
	reserve_gpu_share(s);
}

/* The GPUs' throughput together, shared among them by compute units (one GPU: all of it). */
static double prior_share_of(const struct sched *s, unsigned i, double lgpu)
{
	double cu = 0;

	if (s->ng == 1)
		return lgpu;
	for (unsigned k = 0; k < s->ng; k++)
		cu += s->g[k].neu;
	return lgpu * s->g[i].neu / cu;
}

static void logfit_prime(struct sched *s, const struct sched_prior *p)
{
	struct logfit *lf = logfit_of(s);

	if (!(p->lgpu > 0) || !(p->lcpu > 0))
		return;
	lf->primed = true;
	lf->primed_lc = p->lcpu;
	lf->primed_share = p->share;
	for (unsigned i = 0; i < s->ng; i++)
		s->lambda[s->c.ncpu + i] = prior_share_of(s, i, p->lgpu);
	for (unsigned d = 0; d < s->c.ncpu; d++)
		s->lambda[d] = p->lcpu;
}

/* The GPUs' share of the step and their throughputs at their largest chunks. */
static bool logfit_profile(const struct sched *s, struct sched_prior *p)
{
	const struct logfit *lf = logfit_of(s);
	double lc = sched_cpu_mean(s), big = 0;
	size_t items = 0;

	for (unsigned i = 0; i < s->ng; i++) {
		big += lf->g[i].big_lg;
		items += s->g[i].items;
	}
	if (!(big > 0) || s->assigned == 0)
		return false;
	*p = (struct sched_prior){(double)items / (double)s->assigned, big, lc};
	return true;
}

/* A core that sat out the step before is asked again every ASK_AGAIN-th step only, not in
 * every one: 16 cores asking and sitting out at each step's start held the run's lock while
 * the GPU waited for its chunk (an SpMV run of one GPU chunk a step took 10 % longer than
 * Static, whose cores take no part). Nor is one asked where the GPU's share set aside is the
 * whole step (a primed run whose cores would leave the GPU a scrap, fit_chunk): the 16 cores'
 * threads woke in the first step to find nothing, and a Mandelbrot run of two 1.4 ms GPU
 * chunks took 0.14-0.57 ms beyond them against Static's 0.10-0.15. */
static bool logfit_uses(const struct sched *s, unsigned dev)
{
	const struct logfit *lf = logfit_of(s);

	if (is_gpu(s, dev))
		return true;
	if (left(&s->pool) == 0)
		return false;
	return lf->out_step[dev] == 0 || (lf->step - lf->out_step[dev]) % ASK_AGAIN == 0;
}

static void logfit_init(struct sched *s)
{
	unsigned nc = s->c.ncpu ? s->c.ncpu : 1;
	struct logfit *lf = xcalloc(1, sizeof(*lf));

	lf->learn = learn_new(&s->c, s->ndev);
	lf->g = xcalloc(s->ng ? s->ng : 1, sizeof(*lf->g));
	for (unsigned i = 0; i < s->ng; i++) {
		lf->g[i].com = &s->g[i];
		lf->g[i].samp_goal = LOGFIT_SAMPLES;
	}
	lf->out = xcalloc(nc, sizeof(*lf->out));
	lf->out_step = xcalloc(nc, sizeof(*lf->out_step));
	lf->probe = xcalloc(nc, sizeof(*lf->probe));
	lf->out_lg = xcalloc(nc, sizeof(*lf->out_lg));
	lf->clast = xcalloc(nc, sizeof(*lf->clast));
	s->priv = lf;
}

static void logfit_fini(struct sched *s)
{
	struct logfit *lf = logfit_of(s);

	learn_free(lf->learn);
	free(lf->g);
	free(lf->out);
	free(lf->out_step);
	free(lf->probe);
	free(lf->out_lg);
	free(lf->clast);
	free(lf);
}

static struct learn *logfit_learner(const struct sched *s)
{
	return logfit_of(s)->learn;
}

static const struct fit *logfit_fit_of(const struct sched *s, unsigned gpu)
{
	return gpu < s->ng ? &logfit_of(s)->g[gpu].fit : NULL;
}

const struct sched_ops sched_logfit_ops = {
        .counts_copies = true,
        .init = logfit_init,
        .fini = logfit_fini,
        .uses = logfit_uses,
        .step_begin = logfit_step_begin,
        .next = logfit_next,
        .done = logfit_done,
        .prime = logfit_prime,
        .profile = logfit_profile,
        .learner = logfit_learner,
        .fit = logfit_fit_of,
};

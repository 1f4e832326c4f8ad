/* LogFit's CPU cores (003 §4: C = G·λC/λG), with several GPUs sized against the one that
 * ends first, and a core's sitting out a step it could only hold up (not in 003; see
 * docs/partition.md). The GPUs' side is sched-logfit.c. */
#include <math.h>

#include "engines/partition/sched-learn.h"
#include "engines/partition/sched-logfit-int.h"

#define PRIMED_PARTS 4 /* a primed core's share of what is left comes in this many chunks */
/* A core whose one-granule chunk is out of work comes back when the GPU's throughput changes
 * by this factor (not in 003). */
#define REGION_FACTOR 2.0

/* The GPUs' throughputs together over those that still take work in this step (not off). */
static double gpu_lambda_on(const struct sched *s)
{
	const struct logfit *lf = logfit_of(s);
	double t = 0;

	for (unsigned i = 0; s->c.gpu && i < s->ng; i++)
		if (!lf->g[i].off)
			t += s->lambda[s->c.ncpu + i];
	return t;
}

/* The GPUs that will take from the pool what a core leaves: not off, not busy with a chunk,
 * and with no part set aside. A core's share of the pool is by the throughputs of those
 * alone; counting a GPU busy with its own part kept each core's chunks to a sliver of what
 * the pool held for the cores, a hundred 1-9-row chunks a Jacobi step at 0.34 ms each. */
static double gpus_at_pool(const struct sched *s)
{
	const struct logfit *lf = logfit_of(s);
	double t = 0;

	for (unsigned i = 0; s->c.gpu && i < s->ng; i++) {
		const struct lgpu *g = &lf->g[i];

		if (!g->off && !g->com->running && left(&g->com->r) == 0)
			t += s->lambda[s->c.ncpu + i];
	}
	return t;
}

/* With several GPUs, their throughput together on what is left shared among those still
 * taking work: each at its fitted throughput for its part (else its last). A GPU's last
 * throughput comes from a full chunk; the end of a step gives it a small part, at a fraction
 * of that (the cores sat out and left 512 items to a GPU that took 5 ms for them). */
static double gpus_for_rest(const struct sched *s, size_t r)
{
	const struct logfit *lf = logfit_of(s);
	unsigned on = 0;
	double t = 0;

	for (unsigned i = 0; i < s->ng; i++)
		on += !lf->g[i].off;
	for (unsigned i = 0; i < s->ng; i++) {
		const struct lgpu *g = &lf->g[i];
		double y = 0;

		if (g->off)
			continue;
		if (g->fit.fitted)
			y = logfit_eval(g->fit.a, g->fit.b, fmin(g->fit.grec, (double)r / on));
		t += y > 0 ? y : lgpu_lambda(s, g);
	}
	return t;
}

/* Every GPU still taking work has a chunk: none can take the rest now. */
static bool gpus_busy(const struct sched *s)
{
	const struct logfit *lf = logfit_of(s);

	for (unsigned i = 0; i < s->ng; i++)
		if (!lf->g[i].off && !lf->g[i].com->running)
			return false;
	return true;
}

static bool gpus_off(const struct sched *s)
{
	const struct logfit *lf = logfit_of(s);

	for (unsigned i = 0; i < s->ng; i++)
		if (!lf->g[i].off)
			return false;
	return true;
}

/* Whether core dev sits out the rest of the step: its smallest chunk, one granule at its
 * throughput and no less than a chunk's fixed cost (sched_least_chunk_ms), would take longer
 * than the GPUs alone need for all that is left, so it could only make them wait. Not in
 * 003, whose GPU was a few cores' worth; a discrete GPU can be worth 300 PoCL cores. A core
 * that sat out is asked again when the GPUs' throughput has changed by REGION_FACTOR (another
 * region of the space), and in the next step. */
static bool logfit_sits_out(struct sched *s, unsigned dev, size_t r)
{
	struct logfit *lf = logfit_of(s);
	double lc = sched_cpu_lambda(s, dev);
	double lg = s->ng > 1 ? gpus_for_rest(s, r) : sched_gpu_lambda(s);

	if (lf->out[dev] && lg > 0 &&
	    (lg > REGION_FACTOR * lf->out_lg[dev] || lg * REGION_FACTOR < lf->out_lg[dev]))
		lf->out[dev] = false;
	if (lf->out[dev])
		return true;
	if (!(lc > 0) || !(lg > 0) || sched_least_chunk_ms(lf->learn, lc) <= (double)r / lg ||
	    (s->ng > 1 && gpus_busy(s)))
		return false;
	lf->out[dev] = lf->probe[dev] = lf->cores_out = true;
	if (s->cms[dev] <= 0) /* no chunk in the whole step: left out of the next ones */
		lf->out_step[dev] = lf->step;
	lf->out_lg[dev] = lg;
	return true;
}

/* The GPU chunk a core's chunk is sized against (003 §4: C = G·λC/λG): of the GPUs with a
 * throughput, the one whose next chunk (G, or what is left when that is less) ends first,
 * so that a core is back before any GPU waits. NULL when no GPU has a throughput. */
static const struct lgpu *pace_gpu(const struct sched *s, size_t r, double *gchunk)
{
	const struct logfit *lf = logfit_of(s);
	const struct lgpu *best = NULL;
	double best_ms = 0;

	for (unsigned i = 0; i < s->ng; i++) {
		const struct lgpu *g = &lf->g[i];
		double lg = lgpu_lambda(s, g), x;

		if (!(lg > 0) || (s->ng > 1 && g->off))
			continue;
		x = fmin(g->fit.grec > 0 ? g->fit.grec : (double)g->last, (double)r);
		if (!best || x / lg < best_ms) {
			best = g;
			best_ms = x / lg;
			*gchunk = x;
		}
	}
	return best;
}

/* The pace GPU's throughput on its next chunk of x items: its fit's at x, or its last where
 * that is more (a fit below its samples' range) or there is no fit yet. Its last throughput was
 * measured on its last chunk, which after the samples is the largest of them (8 nEU items): on a
 * discrete GPU that fills only with far more items, C = G·λC/λG on it gave each core a chunk 9
 * times what it ends in the GPU's chunk's time (the simulation's 2 GPUs 100 times a core and 16
 * cores: the first step 3.3 times the next ones). */
static double pace_lambda(const struct sched *s, const struct lgpu *g, double x)
{
	double y = g->fit.fitted ? logfit_eval(g->fit.a, g->fit.b, x) : 0;

	return fmax(y, lgpu_lambda(s, g));
}

/* Primed, a core's first chunk of a step is sized on the profile's throughput, not on this
 * step's work, and so is every chunk while the step's differs from the profile's by more
 * than twice: on irregular work one chunk of a core's whole share met a heavy region and
 * held the step (the simulation's hot region, 1 GPU 16 x a core: 0.23 of the oracle, 0.68 in
 * quarters; on a discrete GPU, Mandelbrot and neighbours primed took 1.4-1.7 x Static).
 * Only then is it cut
 * into quarters: on a regular Jacobi grid, quarters throughout made 230 chunks a step of
 * PoCL launches where 130 had been. */
static bool primed_unsure(const struct sched *s, unsigned dev)
{
	const struct logfit *lf = logfit_of(s);
	double lc = s->lambda[dev];

	if (!lf->primed)
		return false;
	return s->cms[dev] <= 0 || lc < lf->primed_lc / 2 || lc > 2 * lf->primed_lc;
}

/* The smallest chunk the cores' fixed cost allows at the front of the pool: its items by the
 * cost map where there is one, else at the mean cost an item. */
static double min_chunk(const struct sched *s)
{
	const struct logfit *lf = logfit_of(s);
	double ms = sched_cost_min_ms(lf->learn);

	if (sched_map_ready(lf->learn))
		return ms > 0 ? sched_map_reach(lf->learn, s->pool.next, ms) : 0;
	return sched_cost_min_chunk(lf->learn);
}

/* 003 §4: C = G·λC/λG, the chunk a core ends in the time the GPU needs for its next chunk
 * (G, or what is left when that is less). A core never takes more than its share of what is
 * left in proportion to its throughput (the rule of [15] 003 §4 builds on): where the last
 * throughputs were measured on lighter work than a chunk meets, a chunk of G·λC/λG could
 * otherwise hold a core long after the others are done. Its first chunk is a probe of one
 * granule, and until a GPU's throughput is known its chunks double from there: sized
 * from the GPU's chunk, a core's first chunk beside a discrete GPU takes longer than the
 * step. */
enum sched_answer sched_logfit_cpu(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	struct logfit *lf = logfit_of(s);
	size_t r = left(&s->pool);
	double lc, lg = gpu_lambda_on(s), lg_free, c, fair, equal, gchunk = 0;
	const struct lgpu *pace;

	if (r == 0) {
		/* Nothing was left for it: it sat the step out, like one that sits out by rule. */
		if (s->cms[dev] <= 0)
			lf->out_step[dev] = lf->step;
		return SCHED_DONE;
	}
	if (gpus_off(s))
		return sched_take_guided(s, lf->learn, &s->pool, PHASE_FIT, out);
	if (logfit_sits_out(s, dev, r))
		return SCHED_DONE;
	if (s->lambda[dev] <= 0 || lf->probe[dev]) {
		lf->probe[dev] = false;
		return sched_take(s, &s->pool, s->c.granule, PHASE_PROBE, out);
	}
	lc = s->lambda[dev];
	lg_free = gpus_at_pool(s);
	pace = pace_gpu(s, r, &gchunk);
	fair = (double)r * lc / (lg_free + sched_cpu_total(s));
	/* Nor more than an equal share of it among the devices: a core is not faster than a
	 * GPU, and a larger chunk means its throughput came from lighter work than the GPU's. */
	equal = ceil((double)r / (s->c.ncpu + s->ng));
	if (!(lg > 0) || !pace)
		c = 2.0 * (double)lf->clast[dev];
	else
		c = fmin(logfit_cpu_chunk(gchunk, lc, pace_lambda(s, pace, gchunk)), fair);
	c = fmin(c, equal);
	if (primed_unsure(s, dev))
		c = fmin(c, fair / PRIMED_PARTS);
	/* Where the cost map says the next items are dearer than those the throughputs came
	 * from, no more of them than a core ends in the GPU's chunk's time: beside a core
	 * standing in for the GPU, a core's chunks of 46144 and 47424 items met Mandelbrot's
	 * set and took 75 and 95 ms while the stand-in's took 6 and 22. */
	if (lg > 0 && pace && sched_map_ready(lf->learn))
		c = fmin(c, sched_map_reach(lf->learn, s->pool.next,
		                            gchunk / pace_lambda(s, pace, gchunk)));
	/* No chunk whose fixed cost is more than a quarter of its time, where its shares allow
	 * one: 16 PoCL cores spend 0.3 ms on a Jacobi chunk besides 0.011 ms a row, and
	 * LogFit's chunks of 1-20 rows (8 on average) spent three quarters of their time on
	 * it. Not before a GPU has a throughput: beside a discrete GPU a core's chunk sized
	 * without it takes longer than the GPU's whole step. */
	if (lg > 0 && pace)
		c = fmax(c, fmin(min_chunk(s), fmin(fair, equal)));
	return sched_take(s, &s->pool, sched_floor_chunk(s, c, r), PHASE_FIT, out);
}

/* HDSS (003 §5.1): training with growing chunks and a log fit until the relative speed is
 * stable, then weighted guided self-scheduling; nothing kept across steps (sched.h). */
#include <math.h>
#include <string.h>

#include "engines/partition/sched-int.h"

/* Training stops once the relative speed changes by less than 1 %, or once 20 % of the
 * space is handed out. */
#define HDSS_STABLE 0.01
#define HDSS_LIMIT  0.2

/* The GPUs are one pool of equal devices here: one fit over all their samples (kept in the
 * first GPU's state), one relative speed, a GPU's throughput their mean. */
static void hdss_end_training(struct sched *s)
{
	struct gst *g = &s->g[0];
	double lc = sched_cpu_mean(s), lg = sched_gpu_lambda(s) / s->ng, est = lg;

	if (g->fitted) {
		double y = logfit_eval(g->a, g->b, g->grec);

		if (y > 0)
			est = y;
	}
	if (s->rel <= 0)
		s->rel = lc > 0 && est > 0 ? est / lc : 1.0;
	s->training = false;
}

/* A log fit of every sample: the recommended chunk and the throughput there (where the fit
 * says nothing, as logfit_refit: the last chunk's size). */
static void hdss_refit(struct sched *s, struct gst *g)
{
	if (g->grec <= 0)
		g->grec = s->hx[s->nh - 1];
	if (logfit_fit(s->hx, s->hy, s->nh, &g->a, &g->b) == 0) {
		g->fitted = true;
		if (logfit_gpu_chunk(g->a, s->c.thld) > 0)
			g->grec = logfit_gpu_chunk(g->a, s->c.thld);
	}
	if (g->grec < sched_first_sample(s, g))
		g->grec = sched_first_sample(s, g);
}

static void hdss_gpu_done(struct sched *s, const struct sched_chunk *c, double lambda)
{
	double lc = sched_cpu_mean(s);
	struct gst *g = &s->g[0];

	if (s->nh < HDSS_MAX_SAMPLES) {
		s->hx[s->nh] = (double)c->size;
		s->hy[s->nh] = lambda;
		s->nh++;
	}
	if (s->nh < LOGFIT_SAMPLES)
		return;
	hdss_refit(s, g);
	if (lc > 0) {
		double y = g->fitted ? logfit_eval(g->a, g->b, g->grec) : lambda;

		s->rel = (y > 0 ? y : lambda) / lc;
		if (s->prev_rel > 0 && fabs(s->rel - s->prev_rel) < HDSS_STABLE * s->prev_rel)
			hdss_end_training(s);
		s->prev_rel = s->rel;
	}
}

static enum sched_answer hdss_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	size_t r = left(&s->pool);
	double x;

	if (r == 0)
		return SCHED_DONE;
	if (s->training && is_gpu(s, dev)) {
		x = s->nh < LOGFIT_SAMPLES ? sched_sample(s, gpu_of(s, dev), s->nh + 1)
		                           : s->g[0].grec;
		return sched_take(s, &s->pool, sched_round_chunk(s, x, r), PHASE_TRAIN, out);
	}
	if (s->training) {
		x = ldexp((double)s->c.granule, (int)(s->cpu_k[dev] < 40 ? s->cpu_k[dev] : 40));
		s->cpu_k[dev]++;
		return sched_take(s, &s->pool, sched_round_chunk(s, x, r), PHASE_TRAIN, out);
	}
	/* Weighted guided self-scheduling: a device's share of what is left, by relative
	 * speed (a core weighs 1, a GPU rel), the largest chunk first. */
	{
		double w = is_gpu(s, dev) ? s->rel : 1.0;
		double total = (s->c.gpu ? s->ng * s->rel : 0) + s->c.ncpu;

		x = ceil((double)r * w / total);
		return sched_take(s, &s->pool, sched_round_chunk(s, x, r), PHASE_GUIDED, out);
	}
}

static void hdss_done(struct sched *s, unsigned dev, const struct sched_chunk *c, double lambda)
{
	if (s->training && is_gpu(s, dev))
		hdss_gpu_done(s, c, lambda);
	if (s->training && (double)s->pool.next >= HDSS_LIMIT * (double)s->c.items)
		hdss_end_training(s);
}

static void hdss_step_begin(struct sched *s)
{
	/* HDSS trains again in every step (003 §5.1: "HDSS does not re-use information"). */
	s->nh = 0;
	s->g[0].fitted = false;
	s->rel = s->prev_rel = 0;
	s->g[0].grec = 0;
	memset(s->cpu_k, 0, (s->c.ncpu ? s->c.ncpu : 1) * sizeof(*s->cpu_k));
	memset(s->lambda, 0, s->ndev * sizeof(*s->lambda));
	s->training = s->c.gpu && s->c.ncpu > 0;
	if (!s->training)
		s->rel = 1.0;
}

const struct sched_ops sched_hdss_ops = {
        .step_begin = hdss_step_begin,
        .next = hdss_next,
        .done = hdss_done,
};

double sched_relative_speed(const struct sched *s)
{
	return s->kind == SCHED_HDSS ? s->rel : 0;
}

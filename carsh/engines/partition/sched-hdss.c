/* HDSS (003 §5.1): training with growing chunks and a log fit until the relative speed is
 * stable, then weighted guided self-scheduling; nothing kept across steps (sched.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/partition/logfit.h"
#include "engines/partition/sched-int.h"
#include "util/alloc.h"

/* Training stops once the relative speed changes by less than 1 %, or once 20 % of the
 * space is handed out. */
#define HDSS_STABLE 0.01
#define HDSS_LIMIT  0.2

/* HDSS keeps every training sample of a step. */
#define HDSS_MAX_SAMPLES 64

/* HDSS's own state, nothing of it kept across steps; the GPUs are one pool. */
struct hdss {
	bool training;
	double hx[HDSS_MAX_SAMPLES], hy[HDSS_MAX_SAMPLES];
	unsigned nh;
	struct fit fit; /* of every sample */
	double rel, prev_rel;
	unsigned *cpu_k; /* training chunks each core has had */
};

static struct hdss *hdss_of(const struct sched *s)
{
	return s->priv;
}

/* The GPUs are one pool of equal devices here: one fit over all their samples (reported as the
 * first GPU's), one relative speed, a GPU's throughput their mean. */
static void hdss_end_training(struct sched *s)
{
	struct hdss *hd = hdss_of(s);
	double lc = sched_cpu_mean(s), lg = sched_gpu_lambda(s) / s->ng, est = lg;
	const struct fit *f = &hd->fit;

	if (f->fitted) {
		double y = logfit_eval(f->a, f->b, f->grec);

		if (y > 0)
			est = y;
	}
	if (hd->rel <= 0)
		hd->rel = lc > 0 && est > 0 ? est / lc : 1.0;
	hd->training = false;
}

/* A log fit of every sample: the recommended chunk and the throughput there (where the fit
 * says nothing, as logfit_refit: the last chunk's size). */
static void hdss_refit(struct sched *s)
{
	struct hdss *hd = hdss_of(s);
	struct fit *f = &hd->fit;

	if (f->grec <= 0)
		f->grec = hd->hx[hd->nh - 1];
	if (logfit_fit(hd->hx, hd->hy, hd->nh, &f->a, &f->b) == 0) {
		f->fitted = true;
		if (logfit_gpu_chunk(f->a, s->c.thld) > 0)
			f->grec = logfit_gpu_chunk(f->a, s->c.thld);
	}
	if (f->grec < sched_first_sample(s, &s->g[0]))
		f->grec = sched_first_sample(s, &s->g[0]);
}

static void hdss_gpu_done(struct sched *s, const struct sched_chunk *c, double lambda)
{
	struct hdss *hd = hdss_of(s);
	double lc = sched_cpu_mean(s);
	const struct fit *f = &hd->fit;

	if (hd->nh < HDSS_MAX_SAMPLES) {
		hd->hx[hd->nh] = (double)c->size;
		hd->hy[hd->nh] = lambda;
		hd->nh++;
	}
	if (hd->nh < LOGFIT_SAMPLES)
		return;
	hdss_refit(s);
	if (lc > 0) {
		double y = f->fitted ? logfit_eval(f->a, f->b, f->grec) : lambda;

		hd->rel = (y > 0 ? y : lambda) / lc;
		if (hd->prev_rel > 0 && fabs(hd->rel - hd->prev_rel) < HDSS_STABLE * hd->prev_rel)
			hdss_end_training(s);
		hd->prev_rel = hd->rel;
	}
}

static enum sched_answer hdss_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	struct hdss *hd = hdss_of(s);
	size_t r = left(&s->pool);
	double x;

	if (r == 0)
		return SCHED_DONE;
	if (hd->training && is_gpu(s, dev)) {
		x = hd->nh < LOGFIT_SAMPLES ? sched_sample(s, gpu_of(s, dev), hd->nh + 1)
		                            : hd->fit.grec;
		return sched_take(s, &s->pool, sched_round_chunk(s, x, r), PHASE_TRAIN, out);
	}
	if (hd->training) {
		x = ldexp((double)s->c.granule, (int)(hd->cpu_k[dev] < 40 ? hd->cpu_k[dev] : 40));
		hd->cpu_k[dev]++;
		return sched_take(s, &s->pool, sched_round_chunk(s, x, r), PHASE_TRAIN, out);
	}
	/* Weighted guided self-scheduling: a device's share of what is left, by relative
	 * speed (a core weighs 1, a GPU rel), the largest chunk first. */
	{
		double w = is_gpu(s, dev) ? hd->rel : 1.0;
		double total = (s->c.gpu ? s->ng * hd->rel : 0) + s->c.ncpu;

		x = ceil((double)r * w / total);
		return sched_take(s, &s->pool, sched_round_chunk(s, x, r), PHASE_GUIDED, out);
	}
}

static void hdss_done(struct sched *s, unsigned dev, const struct sched_chunk *c, double ms,
                      double lambda)
{
	(void)ms;
	struct hdss *hd = hdss_of(s);

	if (hd->training && is_gpu(s, dev))
		hdss_gpu_done(s, c, lambda);
	if (hd->training && (double)s->pool.next >= HDSS_LIMIT * (double)s->c.items)
		hdss_end_training(s);
}

static void hdss_step_begin(struct sched *s)
{
	struct hdss *hd = hdss_of(s);

	/* HDSS trains again in every step (003 §5.1: "HDSS does not re-use information"). */
	hd->nh = 0;
	hd->fit.fitted = false;
	hd->rel = hd->prev_rel = 0;
	hd->fit.grec = 0;
	memset(hd->cpu_k, 0, (s->c.ncpu ? s->c.ncpu : 1) * sizeof(*hd->cpu_k));
	memset(s->lambda, 0, s->ndev * sizeof(*s->lambda));
	hd->training = s->c.gpu && s->c.ncpu > 0;
	if (!hd->training)
		hd->rel = 1.0;
}

static void hdss_init(struct sched *s)
{
	struct hdss *hd = xcalloc(1, sizeof(*hd));

	hd->cpu_k = xcalloc(s->c.ncpu ? s->c.ncpu : 1, sizeof(*hd->cpu_k));
	s->priv = hd;
}

static void hdss_fini(struct sched *s)
{
	free(hdss_of(s)->cpu_k);
	free(s->priv);
}

/* The pooled fit is the first GPU's. */
static const struct fit *hdss_fit_of(const struct sched *s, unsigned gpu)
{
	return gpu == 0 ? &hdss_of(s)->fit : NULL;
}

const struct sched_ops sched_hdss_ops = {
        .init = hdss_init,
        .fini = hdss_fini,
        .step_begin = hdss_step_begin,
        .next = hdss_next,
        .done = hdss_done,
        .fit = hdss_fit_of,
};

double sched_relative_speed(const struct sched *s)
{
	return s->kind == SCHED_HDSS ? hdss_of(s)->rel : 0;
}
